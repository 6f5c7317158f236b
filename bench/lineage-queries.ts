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
 * warming up counts against it.
 *
 *   npm run bench:lineage                 # 10,000 jobs
 *   npm run bench:lineage -- --jobs 2000  # another size
 *   npm run bench:lineage -- --keep DIR   # keep the store at DIR (for the CLI)
 *   npm run bench:lineage -- --store DIR  # reuse a store kept earlier (no generation)
 *   npm run bench:lineage -- --repeat 3   # best of 3 rounds of each (for a busy machine)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
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

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "10000" },
    keep: { type: "string" },
    store: { type: "string" },
    repeat: { type: "string", default: "1" },
  },
});

type Way = "before" | "after";
const WAYS: Record<Way, ReadLineageOptions["from"]> = { before: "records", after: "summaries" };
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

const dir = values.store
  ? resolve(values.store)
  : values.keep
    ? resolve(values.keep)
    : await mkdtemp(join(tmpdir(), "voxtrail-bench-lineage-"));
const store = new DirectoryStore({ root: dir });
try {
  if (!values.store) {
    const jobs = Number(values.jobs);
    process.stderr.write(`writing ${jobs} jobs in ${dir} ...\n`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < jobs) await writeSyntheticJob(store, next++);
      }),
    );
  }
  const summaries = await store.list(keys.lineageSummaries);
  const sampleJob = summaries[Math.floor(summaries.length / 3)]?.slice(keys.lineageSummaries.length, -5);
  if (!sampleJob) throw new Error("the store holds no lineage summaries");
  const one = LineageGraph.of(await readLineage(store, { jobId: sampleJob }));
  const source = one.jobs.get(sampleJob)?.[0]?.record.inputs[0]?.key as string;
  const replyAudio = [...one.writers.keys()].find((key) => key.endsWith("/reply.wav")) as string;

  let records = 0;
  let artifacts = 0;
  // Each question on its own, as a fresh `voxtrail lineage` process would ask it.
  const ways = Array.from({ length: Number(values.repeat) }, () => ["after", "before"] as const).flat();
  for (const way of ways) {
    process.stderr.write(`${way} ...\n`);
    const graphOf = async (jobId?: string) =>
      LineageGraph.of(await readLineage(store, { ...(jobId ? { jobId } : {}), from: WAYS[way] }));
    await time("trace <reply audio> (one job)", way, async () => {
      const jobId = jobIdOfArtifactName(replyAudio);
      return trace(await graphOf(jobId), replyAudio);
    });
    await time("trace <source> (whole store)", way, async () => trace(await graphOf(), source));
    await time("impact <source>", way, async () => impact(await graphOf(), source));
    await time("boundaries", way, async () => boundaries(await graphOf()));
    await time("export --format openlineage", way, async () => {
      let bytes = 0;
      for (const event of openLineageEvents(await graphOf(), { bucket: store.bucket }))
        bytes += JSON.stringify(event).length;
      return bytes;
    });
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

  const names = [...rows.keys()];
  const width = Math.max(...names.map((name) => name.length));
  const seconds = (ms: number | undefined) =>
    (ms === undefined ? "-" : `${(ms / 1000).toFixed(ms < 1000 ? 3 : 2)} s`).padStart(10);
  process.stdout.write(
    `lineage queries over ${summaries.length} jobs (${records} activity records, ${artifacts} artifacts), ` +
      `node ${process.version}, directory store in ${dir}\n` +
      `${"".padEnd(width)}  ${"before".padStart(10)}  ${"after".padStart(10)}  speed-up\n`,
  );
  for (const [name, { before, after }] of rows) {
    const ratio = before !== undefined && after ? `${(before / after).toFixed(1)}x` : "-";
    process.stdout.write(`${name.padEnd(width)}  ${seconds(before)}  ${seconds(after)}  ${ratio}\n`);
  }
} finally {
  if (!values.keep && !values.store) await rm(dir, { recursive: true, force: true });
}
