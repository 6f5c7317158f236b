/**
 * Lineage queries at scale: writes N synthetic voicemail jobs (source, five artifacts, report,
 * five activity records and the lineage summary each, through the real DirectoryStore) into a
 * temporary store, then times what `voxtrail lineage` does, each question end to end (read, build
 * the graph, answer) as the CLI asks it, two ways side by side:
 *
 *   before  every activity record read one by one (what every command did before summaries)
 *   after   what the command does now: one lineage summary per job for trace, impact, boundaries
 *           and export
 *
 * `verify` reads every record either way (the records are what it checks, and it now also checks
 * every summary against them), so it has one figure: after. The "after" pass runs first, so
 * warming up counts against it. `npm run bench` asks only trace, impact and verify
 * ({@link benchLineageQueries} with `questions: "core"`); run on its own, every question:
 *
 *   npm run bench:lineage                 # 10,000 jobs
 *   npm run bench:lineage -- --jobs 2000  # another size
 *   npm run bench:lineage -- --keep DIR   # keep the store at DIR (for the CLI)
 *   npm run bench:lineage -- --store DIR  # reuse a store kept earlier (no generation)
 *   npm run bench:lineage -- --repeat 3   # best of 3 rounds of each (for a busy machine)
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { mapLimit } from "@voxtrail/core";
import {
  boundaries,
  impact,
  jobIdOfArtifactName,
  LineageGraph,
  openLineageEvents,
  type ReadLineageOptions,
  readLineage,
  trace,
  verify,
} from "@voxtrail/lineage";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { writeSyntheticJob } from "../packages/lineage/test/synthetic-jobs";

/** Options of {@link benchLineageQueries}. */
export interface LineageQueryOptions {
  /** Jobs to generate (ignored with `store`). */
  jobs: number;
  /** Reuse the store kept at this directory: no generation. */
  store?: string;
  /** Keep the generated store at this directory. */
  keep?: string;
  /** Best of this many rounds of each question. */
  repeat: number;
  /** `all` questions, or the `core` ones: trace, impact and verify. */
  questions: "all" | "core";
  log: (line: string) => void;
}

/** One question's figures: best wall time each way, ms. */
export interface LineageQueryRow {
  question: string;
  beforeMs?: number;
  afterMs?: number;
  /** Before over after. */
  speedUp?: number;
}

/** What {@link benchLineageQueries} measured. */
export interface LineageQueryResult {
  jobs: number;
  records: number;
  artifacts: number;
  /** Time to write the synthetic jobs (0 when a kept store was reused). */
  generateMs: number;
  rows: LineageQueryRow[];
}

type Way = "before" | "after";
const WAYS: Record<Way, ReadLineageOptions["from"]> = { before: "records", after: "summaries" };

/** Generates the store (unless given one) and times the questions; see the file's comment. */
export async function benchLineageQueries(options: LineageQueryOptions): Promise<LineageQueryResult> {
  const rows = new Map<string, Partial<Record<Way, number>>>();
  async function time<T>(row: string, way: Way, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await run();
    const figures = rows.get(row) ?? {};
    // The best of the rounds: on a shared machine, the other load only ever adds time.
    figures[way] = Math.min(figures[way] ?? Number.POSITIVE_INFINITY, performance.now() - started);
    rows.set(row, figures);
    return result;
  }

  const dir = options.store
    ? resolve(options.store)
    : options.keep
      ? resolve(options.keep)
      : await mkdtemp(join(tmpdir(), "voxtrail-bench-lineage-"));
  const store = new DirectoryStore({ root: dir });
  let generateMs = 0;
  let records = 0;
  let artifacts = 0;
  try {
    if (!options.store) {
      options.log(`lineage: writing ${options.jobs} jobs in ${dir} ...`);
      generateMs = await writeSyntheticJobs(store, options.jobs);
    }
    const summaries = await store.list(keys.lineageSummaries);
    const sampleJob = summaries[Math.floor(summaries.length / 3)]?.slice(keys.lineageSummaries.length, -5);
    if (!sampleJob) throw new Error("the store holds no lineage summaries");
    const one = LineageGraph.of(await readLineage(store, { jobId: sampleJob }));
    const source = one.jobs.get(sampleJob)?.[0]?.record.inputs[0]?.key as string;
    const replyAudio = [...one.writers.keys()].find((key) => key.endsWith("/reply.wav")) as string;

    // Each question on its own, as a fresh `voxtrail lineage` process would ask it.
    const ways = Array.from({ length: options.repeat }, () => ["after", "before"] as const).flat();
    for (const way of ways) {
      options.log(`lineage: ${way} ...`);
      const graphOf = async (jobId?: string) =>
        LineageGraph.of(await readLineage(store, { ...(jobId ? { jobId } : {}), from: WAYS[way] }));
      await time("trace <reply audio> (one job)", way, async () => {
        const jobId = jobIdOfArtifactName(replyAudio);
        return trace(await graphOf(jobId), replyAudio);
      });
      await time("trace <source> (whole store)", way, async () => trace(await graphOf(), source));
      await time("impact <source>", way, async () => impact(await graphOf(), source));
      if (options.questions === "all") {
        await time("boundaries", way, async () => boundaries(await graphOf()));
        await time("export --format openlineage", way, async () => {
          let bytes = 0;
          for (const event of openLineageEvents(await graphOf(), { bucket: store.bucket }))
            bytes += JSON.stringify(event).length;
          return bytes;
        });
      }
      if (way === "before") continue;
      // verify always reads the records: it is what checks them (and the summaries against them).
      await time("verify --job <id>", way, async () => {
        const graph = LineageGraph.of(await readLineage(store, { jobId: sampleJob }));
        return verify(store, graph, { jobId: sampleJob });
      });
      const result = await time("verify (all)", way, async () => {
        const snapshot = await readLineage(store);
        records = snapshot.activities.length;
        return verify(store, LineageGraph.of(snapshot));
      });
      if (!result.ok) throw new Error(`verify found ${result.issues.length} problem(s) in synthetic lineage`);
      artifacts = result.artifactsChecked;
    }
    return {
      jobs: summaries.length,
      records,
      artifacts,
      generateMs: Math.round(generateMs),
      rows: [...rows].map(([question, { before, after }]) => ({
        question,
        ...(before === undefined ? {} : { beforeMs: Math.round(before * 10) / 10 }),
        ...(after === undefined ? {} : { afterMs: Math.round(after * 10) / 10 }),
        ...(before !== undefined && after ? { speedUp: Math.round((before / after) * 10) / 10 } : {}),
      })),
    };
  } finally {
    if (!options.keep && !options.store) await rm(dir, { recursive: true, force: true });
  }
}

/** Writes synthetic jobs 0 to `jobs` - 1 into `store`; resolves to the time it took, ms. */
export async function writeSyntheticJobs(store: DirectoryStore, jobs: number): Promise<number> {
  const started = performance.now();
  const indexes = Array.from({ length: jobs }, (_, index) => index);
  await mapLimit(indexes, 32, (index) => writeSyntheticJob(store, index));
  return performance.now() - started;
}

/** A synthetic store `npm run bench` keeps, and how long writing it took this time (0: reused). */
export interface KeptLineageStore {
  dir: string;
  generateMs: number;
}

/**
 * The store of `jobs` synthetic jobs that `npm run bench` keeps in the OS temp directory, named
 * after the job count and the generator's hash (`<dir>.complete` marks one fully written): reused
 * when kept, else (or with `fresh`) written now.
 */
export async function keptLineageStore(
  jobs: number,
  options: { fresh: boolean; log: (line: string) => void },
): Promise<KeptLineageStore> {
  const generator = await readFile(new URL("../packages/lineage/test/synthetic-jobs.ts", import.meta.url));
  const hash = createHash("sha256").update(generator).digest("hex").slice(0, 12);
  const dir = join(tmpdir(), `voxtrail-bench-lineage-${jobs}-${hash}`);
  const complete = `${dir}.complete`;
  if (existsSync(complete) && !options.fresh) return { dir, generateMs: 0 };
  await rm(complete, { force: true });
  await rm(dir, { recursive: true, force: true });
  options.log(`lineage: writing ${jobs} jobs in ${dir} ...`);
  const generateMs = await writeSyntheticJobs(new DirectoryStore({ root: dir }), jobs);
  await writeFile(complete, `${new Date().toISOString()}\n`);
  return { dir, generateMs: Math.round(generateMs) };
}

/** The figures as the table `npm run bench:lineage` prints. */
export function lineageTable(result: LineageQueryResult): string {
  const width = Math.max(...result.rows.map((row) => row.question.length));
  const seconds = (ms: number | undefined) =>
    (ms === undefined ? "-" : `${(ms / 1000).toFixed(ms < 1000 ? 3 : 2)} s`).padStart(10);
  return [
    `lineage queries over ${result.jobs} jobs (${result.records} activity records, ${result.artifacts} artifacts), node ${process.version}`,
    `${"".padEnd(width)}  ${"before".padStart(10)}  ${"after".padStart(10)}  speed-up`,
    ...result.rows.map(
      (row) =>
        `${row.question.padEnd(width)}  ${seconds(row.beforeMs)}  ${seconds(row.afterMs)}  ${row.speedUp === undefined ? "-" : `${row.speedUp.toFixed(1)}x`}`,
    ),
    "",
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "10000" },
      keep: { type: "string" },
      store: { type: "string" },
      repeat: { type: "string", default: "1" },
    },
  });
  const result = await benchLineageQueries({
    jobs: Number(values.jobs),
    ...(values.keep ? { keep: values.keep } : {}),
    ...(values.store ? { store: values.store } : {}),
    repeat: Number(values.repeat),
    questions: "all",
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(lineageTable(result));
}
