/**
 * The lineage edge index vs the record-walking path (issue 18, "Auditor questions in under a
 * second at 100,000 jobs"): trace <reply audio>, trace <source>, impact <source> and boundaries,
 * each asked in a fresh process, as a `voxtrail lineage` command would ask it, at two sizes:
 *
 *   10,000 jobs   the synthetic store the `lineage` section keeps; its index rebuilt from the
 *                 records (`reindexLineage`, timed, then a compaction with nothing to do, timed),
 *                 and each question answered both ways: from the jobs' lineage summaries (what the
 *                 command does today) and from the index (DuckDB over its Parquet files)
 *   100,000 jobs  an index written directly as rows (`jobRows` of the same synthetic jobs, built
 *                 in memory, over 100 days, written as daily compactions would), kept in the OS
 *                 temp directory like the 10,000-job store; answered from the index only
 *
 * Each answer has two figures, medians over the rounds: the question time, measured in the child
 * from just before it reads the lineage (or opens the index) to the answer, and the whole process,
 * measured by this one from the spawn to the exit (node, tsx, imports and DuckDB's start
 * included); beside them the question's CPU time (every thread), which a busy shared machine
 * inflates less. Both ways' answers are compared. Run it as a section of the bench:
 *
 *   npm run bench -- --only index
 *   npm run bench -- --only index --index-jobs 20000   # a smaller generated index
 *
 * The same file is the child: `node --import tsx bench/lineage-index.ts child WAY QUESTION STORE
 * [NAME]` prints one JSON line ({@link ChildFigures}).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { ObjectStore, StoredObject } from "@voxtrail/core";
import { boundaries, impact, jobIdOfArtifactName, LineageGraph, readLineage, trace } from "@voxtrail/lineage";
import {
  boundariesFromIndex,
  compactLineageIndex,
  deleteForGood,
  type IndexRows,
  impactFromIndex,
  jobRows,
  LINEAGE_INDEX_PREFIX,
  latestManifest,
  reindexLineage,
  traceFromIndex,
  writeGeneration,
} from "@voxtrail/lineage/edge-index";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { writeSyntheticJob } from "../packages/lineage/test/synthetic-jobs";
import { median, round1 } from "./stats";

const SELF = fileURLToPath(import.meta.url);
const REPO = fileURLToPath(new URL("../", import.meta.url));

const QUESTIONS = [
  "trace <reply audio> (one job)",
  "trace <source> (whole store)",
  "impact <source>",
  "boundaries",
] as const;
type Question = (typeof QUESTIONS)[number];
type Way = "records" | "index";

/** Days the generated index's jobs are spread over: one partition each. */
const GENERATED_DAYS = 100;
/** Jobs per generation written into the generated index, as one daily compaction would add them. */
const GENERATION_JOBS = 10_000;

/** Options of {@link benchLineageIndex}. */
export interface LineageIndexOptions {
  /** The kept synthetic store (see `keptLineageStore`): its index is rebuilt, and it is asked both ways. */
  store: string;
  /** Jobs in the index generated directly as rows. */
  indexJobs: number;
  /** Fresh processes per question and way; the figures are their medians (default 3). */
  rounds?: number;
  log: (line: string) => void;
}

/** What one process measured of itself, ms. */
export interface ChildFigures {
  /** From the process's start to just before the question: node, tsx and the imports. */
  readyMs: number;
  /**
   * The question: from just before reading the summaries (or opening the index) to the answer
   * (the graph built and walked, or the index's rows rebuilt into one and walked).
   */
  questionMs: number;
  /** Of `questionMs`, opening the index: manifest, summaries written since, DuckDB's views (0: records). */
  openMs: number;
  /** CPU time of the process over `questionMs`, every thread: what a busy machine does not inflate. */
  cpuMs: number;
}

/** One way's figures: medians over the rounds, each a fresh process, ms. */
export interface WayFigures extends ChildFigures {
  /** The whole process, from the spawn to its exit. */
  processMs: number;
}

/** One question's figures both ways. */
export interface IndexQuestionRow {
  question: string;
  /** From the jobs' lineage summaries, as the command answers today (10,000 jobs only). */
  records?: WayFigures;
  index: WayFigures;
  /** Question time, records over index. */
  ratio?: number;
  /** Whole process, records over index. */
  processRatio?: number;
  /** Both ways answered the same, in every round. */
  sameAnswer?: boolean;
}

/** One size's index and figures. */
export interface IndexScale {
  jobs: number;
  /** `reindex`: rebuilt from the store's records; `rows`: generated directly as index rows. */
  built: "reindex" | "rows";
  /** Time to build the index, ms (0: a kept one reused). */
  buildMs: number;
  /** A compaction right after the reindex, with nothing to do, ms. */
  noopCompactMs?: number;
  days: number;
  /** Table files the manifest names, and their size on disk, MB. */
  files: number;
  indexMb: number;
  rows: IndexQuestionRow[];
}

/** What {@link benchLineageIndex} measured. */
export interface LineageIndexResult {
  rounds: number;
  reindexed: IndexScale;
  generated: IndexScale;
}

/** Builds both indexes and asks each question in fresh processes; see the file's comment. */
export async function benchLineageIndex(options: LineageIndexOptions): Promise<LineageIndexResult> {
  const rounds = options.rounds ?? 3;
  const reindexed = await benchReindexed(options.store, rounds, options.log);
  const kept = await keptGeneratedIndex(options.indexJobs, options.log);
  const store = new DirectoryStore({ root: kept.dir });
  const names = await generatedNames(store, Math.floor(options.indexJobs / 3), options.indexJobs);
  return {
    rounds,
    reindexed,
    generated: {
      jobs: options.indexJobs,
      built: "rows",
      buildMs: kept.buildMs,
      ...(await sizeOf(store)),
      rows: await askAll(kept.dir, names, ["index"], rounds, options.log),
    },
  };
}

/**
 * The kept synthetic store's index, rebuilt from its records, and its questions both ways. The
 * index is deleted afterwards, so the store is as the `lineage` section expects it, and every
 * run reindexes from nothing.
 */
async function benchReindexed(dir: string, rounds: number, log: (line: string) => void): Promise<IndexScale> {
  const store = new DirectoryStore({ root: dir });
  try {
    log(`reindexing ${dir} ...`);
    let started = performance.now();
    const reindex = await reindexLineage(store);
    const buildMs = Math.round(performance.now() - started);
    started = performance.now();
    const noop = await compactLineageIndex(store);
    const noopCompactMs = Math.round(performance.now() - started);
    if (noop.jobsWritten !== 0)
      throw new Error(`a compaction after the reindex wrote ${noop.jobsWritten} job(s)`);
    return {
      jobs: reindex.jobs,
      built: "reindex",
      buildMs,
      noopCompactMs,
      ...(await sizeOf(store)),
      rows: await askAll(dir, await namesOf(store), ["records", "index"], rounds, log),
    };
  } finally {
    await deleteForGood(store, await store.list(LINEAGE_INDEX_PREFIX));
  }
}

/** The artifacts the questions name: a source and a reply audio. */
export interface Names {
  source: string;
  replyAudio: string;
}

/** Asks each question `rounds` times each way, alternating, each in a fresh process. */
async function askAll(
  dir: string,
  names: Names,
  ways: readonly Way[],
  rounds: number,
  log: (line: string) => void,
): Promise<IndexQuestionRow[]> {
  const rows: IndexQuestionRow[] = [];
  for (const question of QUESTIONS) {
    const runs: Record<Way, ChildRun[]> = { records: [], index: [] };
    for (let round = 0; round < rounds; round++) {
      for (const way of ways) runs[way].push(await askInChild(way, question, dir, names));
    }
    const index = medians(runs.index);
    const row: IndexQuestionRow = { question, index };
    if (ways.includes("records")) {
      const records = medians(runs.records);
      row.records = records;
      row.ratio = Math.round((records.questionMs / index.questionMs) * 100) / 100;
      row.processRatio = Math.round((records.processMs / index.processMs) * 100) / 100;
      row.sameAnswer = new Set([...runs.records, ...runs.index].map((run) => run.answer)).size === 1;
    }
    const figures = (way: string, { questionMs, cpuMs, processMs }: WayFigures) =>
      `${way} ${questionMs} ms (cpu ${cpuMs} ms, process ${processMs} ms)`;
    log(
      `${question}: ${[...(row.records ? [figures("records", row.records)] : []), figures("index", index)].join(", ")}${row.sameAnswer === false ? ", ANSWERS DIFFER" : ""}`,
    );
    rows.push(row);
  }
  return rows;
}

/** One child's figures, its whole wall time, and a digest of its answer. */
type ChildRun = WayFigures & { answer: string };

/** The medians of the runs' figures. */
function medians(runs: ChildRun[]): WayFigures {
  const mid = (pick: (run: ChildRun) => number) => round1(median(runs.map(pick)));
  return {
    readyMs: mid((run) => run.readyMs),
    questionMs: mid((run) => run.questionMs),
    openMs: mid((run) => run.openMs),
    cpuMs: mid((run) => run.cpuMs),
    processMs: mid((run) => run.processMs),
  };
}

/** One question in a fresh process: its own figures, and its whole wall time from here. */
async function askInChild(way: Way, question: Question, dir: string, names: Names): Promise<ChildRun> {
  const name =
    question === "boundaries" ? [] : [question.includes("reply") ? names.replyAudio : names.source];
  const started = performance.now();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", SELF, "child", way, question, dir, ...name],
    { cwd: REPO, maxBuffer: 1024 * 1024 },
  ).catch((error: { stderr?: string }) => {
    const cause =
      error.stderr
        ?.trim()
        .split("\n")
        .findLast((line) => /error/i.test(line)) ?? String(error);
    throw new Error(`${question} (${way}) failed in its process: ${cause}`);
  });
  const processMs = performance.now() - started;
  const figures = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as ChildFigures & { answer: string };
  return { ...figures, processMs };
}

/** A source and a reply audio of the job a third of the way into the store's summaries. */
async function namesOf(store: ObjectStore): Promise<Names> {
  const summaries = await store.list(keys.lineageSummaries);
  const jobId = summaries[Math.floor(summaries.length / 3)]?.slice(
    keys.lineageSummaries.length,
    -".json".length,
  );
  if (!jobId) throw new Error("the store holds no lineage summaries");
  const graph = LineageGraph.of(await readLineage(store, { jobId }));
  const source = graph.jobs.get(jobId)?.[0]?.record.inputs[0]?.key as string;
  const replyAudio = [...graph.writers.keys()].find((key) => key.endsWith("/reply.wav")) as string;
  return { source, replyAudio };
}

/** The generated index of `jobs` jobs, kept in the OS temp directory; written first unless kept. */
export async function keptGeneratedIndex(
  jobs: number,
  log: (line: string) => void,
): Promise<{ dir: string; buildMs: number }> {
  const sources = [
    "../packages/lineage/test/synthetic-jobs.ts",
    "../packages/lineage/src/edge-index/index-rows.ts",
    "../packages/lineage/src/edge-index/index-tables.ts",
    "../packages/lineage/src/edge-index/index-generation.ts",
    "../packages/lineage/src/edge-index/lookup-filters.ts",
  ];
  const hash = createHash("sha256");
  for (const source of sources) hash.update(await readFile(new URL(source, import.meta.url)));
  const dir = join(
    tmpdir(),
    `voxtrail-bench-index-${jobs}-${GENERATED_DAYS}d-${hash.digest("hex").slice(0, 12)}`,
  );
  const complete = `${dir}.complete`;
  if (existsSync(complete)) return { dir, buildMs: 0 };
  await rm(dir, { recursive: true, force: true });
  log(`writing an index of ${jobs} jobs as rows in ${dir} ...`);
  const started = performance.now();
  const store = new DirectoryStore({ root: dir });
  for (let first = 0; first < jobs; first += GENERATION_JOBS) {
    const batch = new Map<string, IndexRows>();
    for (let index = first; index < Math.min(first + GENERATION_JOBS, jobs); index++) {
      const { jobId, rows } = await syntheticJobRows(store, index, jobs);
      batch.set(jobId, rows);
    }
    const base = (await latestManifest(store))?.manifest;
    if (!(await writeGeneration(store, base, { jobs: batch, watermark: null, recent: {} })))
      throw new Error("another writer wrote the generated index meanwhile");
  }
  const buildMs = Math.round(performance.now() - started);
  await writeFile(complete, `${new Date().toISOString()}\n`);
  return { dir, buildMs };
}

/**
 * Synthetic job `index`'s index rows, as `writeSyntheticJob` would write the job into `store`,
 * without writing it: its objects are only described (as `store` would describe them) and its
 * lineage summary taken as written. The `jobs` jobs start evenly over {@link GENERATED_DAYS} days.
 */
async function syntheticJobRows(
  store: DirectoryStore,
  index: number,
  jobs: number,
): Promise<{ jobId: string; rows: IndexRows; replyAudio: string }> {
  let summary: string | undefined;
  const describing: Pick<ObjectStore, "bucket" | "put"> = {
    bucket: store.bucket,
    async put(key, body, { contentType }): Promise<StoredObject> {
      const bytes = Buffer.from(body as string);
      if (key.startsWith(keys.lineageSummaries)) summary = bytes.toString("utf8");
      const digest = (algorithm: string) => createHash(algorithm).update(bytes).digest("hex");
      return {
        key,
        uri: store.uri(key),
        bytes: bytes.length,
        contentType,
        sha256: digest("sha256"),
        etag: `"${digest("md5")}"`,
      };
    },
  };
  // writeSyntheticJob starts job `index` at `start + index * 10 s`: this start puts it at its day.
  const at = Date.UTC(2026, 0, 1) + Math.floor((index * GENERATED_DAYS * 86_400_000) / jobs);
  const job = await writeSyntheticJob(describing as ObjectStore, index, at - index * 10_000);
  const { records } = JSON.parse(summary as string) as { records: Parameters<typeof jobRows>[1] };
  return { jobId: job.jobId, rows: jobRows(job.jobId, records), replyAudio: job.artifacts.replyAudio.key };
}

/** A source and a reply audio of generated job `index` (the rows are recomputed, not read). */
export async function generatedNames(store: DirectoryStore, index: number, jobs: number): Promise<Names> {
  const { rows, replyAudio } = await syntheticJobRows(store, index, jobs);
  const source = rows.edges.find((edge) => edge.stage === "Ingest" && edge.role === "input")?.key as string;
  return { source, replyAudio };
}

/** The files the store's latest manifest names: how many, and their size on disk, MB. */
async function sizeOf(store: DirectoryStore): Promise<{ days: number; files: number; indexMb: number }> {
  const latest = await latestManifest(store);
  if (!latest) throw new Error(`no lineage index in ${store.root}`);
  const files = Object.values(latest.manifest.days).flatMap((day) => Object.values(day.files));
  let bytes = 0;
  for (const key of files) bytes += (await stat(fileURLToPath(store.uri(key)))).size;
  return {
    days: Object.keys(latest.manifest.days).length,
    files: files.length,
    indexMb: Math.round(bytes / 1e5) / 10,
  };
}

/** The figures as a table, both sizes. */
export function lineageIndexTable(result: LineageIndexResult): string {
  const width = Math.max(...QUESTIONS.map((question) => question.length));
  const cell = (text: string) => text.padStart(10);
  const ms = (value: number | undefined) => cell(value === undefined ? "-" : `${Math.round(value)} ms`);
  const ratio = (value: number | undefined) => cell(value === undefined ? "-" : times(value));
  const lines: string[] = [];
  for (const scale of [result.reindexed, result.generated]) {
    const built =
      scale.built === "reindex"
        ? `reindexed from the records in ${scale.buildMs} ms, a no-op compaction ${scale.noopCompactMs} ms`
        : `generated as rows${scale.buildMs > 0 ? ` in ${scale.buildMs} ms` : " (kept)"}`;
    lines.push(
      `lineage index over ${scale.jobs} jobs (${built}; ${scale.days} days, ${scale.files} files, ${scale.indexMb} MB), medians of ${result.rounds} fresh processes`,
      `${"".padEnd(width)}  ${["records", "index", "ratio", "(open)", "(idx cpu)", "rec. proc.", "idx. proc.", "ratio"].map(cell).join("  ")}`,
      ...scale.rows.map((row) =>
        [
          row.question.padEnd(width),
          ms(row.records?.questionMs),
          ms(row.index.questionMs),
          ratio(row.ratio),
          ms(row.index.openMs),
          ms(row.index.cpuMs),
          ms(row.records?.processMs),
          ms(row.index.processMs),
          ratio(row.processRatio),
          row.sameAnswer === false ? "ANSWERS DIFFER" : "",
        ]
          .join("  ")
          .trimEnd(),
      ),
      "",
    );
  }
  return lines.join("\n");
}

/** A ratio as the tables print it: two decimals below 1 (where one would read 0.0x). */
export function times(ratio: number): string {
  return `${ratio.toFixed(ratio < 1 ? 2 : 1)}x`;
}

/** The child: one question, one way, timed from just before it reads to the answer. */
async function child(
  way: Way,
  question: Question,
  dir: string,
  name: string | undefined,
): Promise<ChildFigures & { answer: string }> {
  const store = new DirectoryStore({ root: dir });
  // DuckDB is loaded only where it is asked, as the command loads it only for the index.
  const duckdb = way === "index" ? await import("@voxtrail/cli/lineage-index") : undefined;
  const readyMs = performance.now();
  const cpu = process.cpuUsage();
  const done = (answer: unknown, openMs = 0) => {
    const { user, system } = process.cpuUsage(cpu);
    return {
      readyMs,
      questionMs: performance.now() - readyMs,
      openMs,
      cpuMs: (user + system) / 1000,
      answer: digest(answer),
    };
  };
  if (!duckdb) {
    const jobId = question.includes("reply") ? jobIdOfArtifactName(name as string) : undefined;
    const graph = LineageGraph.of(
      await readLineage(store, { ...(jobId ? { jobId } : {}), from: "summaries" }),
    );
    return done(
      question === "boundaries"
        ? boundaries(graph)
        : question === "impact <source>"
          ? impact(graph, name as string)
          : trace(graph, name as string),
    );
  }
  const index = await duckdb.openDuckDbIndex(store);
  if (!index) throw new Error(`no lineage index in ${dir}`);
  const openMs = performance.now() - readyMs;
  try {
    return done(
      question === "boundaries"
        ? await boundariesFromIndex(index)
        : question === "impact <source>"
          ? await impactFromIndex(index, name as string)
          : await traceFromIndex(index, name as string),
      openMs,
    );
  } finally {
    await index.close();
  }
}

/** A digest of an answer, its objects' fields in name order (the two ways build them in different orders). */
function digest(answer: unknown): string {
  const sorted = (_: string, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value;
  return createHash("sha256").update(JSON.stringify(answer, sorted)).digest("hex");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "child") {
  const [way, question, dir, name] = process.argv.slice(3);
  if (!(way === "records" || way === "index") || !QUESTIONS.includes(question as Question) || !dir)
    throw new Error("usage: lineage-index.ts child records|index QUESTION STORE [NAME]");
  process.stdout.write(`${JSON.stringify(await child(way, question as Question, dir, name))}\n`);
}
