/**
 * Lineage queries at scale: writes N synthetic voicemail jobs (source, five artifacts, report and
 * five activity records each, through the real DirectoryStore) into a temporary store, then times
 * what `voxtrail lineage` does: read (list + parse every record), build the graph, trace, impact,
 * boundaries, export, verify one job, and verify everything (re-hashing every artifact). Runs two
 * sizes side by side (a tenth of N, and N) and prints the ratio, so the scaling shows.
 *
 *   npm run bench:lineage                 # 10,000 jobs and 1,000 jobs
 *   npm run bench:lineage -- --jobs 2000  # another size
 *   npm run bench:lineage -- --keep DIR   # keep the largest store at DIR (for the CLI)
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
  readLineage,
  trace,
  verify,
} from "@voxtrail/lineage";
import { DirectoryStore } from "@voxtrail/storage";
import { type SyntheticJob, writeSyntheticJob } from "../packages/lineage/test/synthetic-jobs";

const { values } = parseArgs({
  options: { jobs: { type: "string", default: "10000" }, keep: { type: "string" } },
});
const largest = Number(values.jobs);
const QUERIES = 1000;

type Figures = Record<string, number>;

async function time<T>(figures: Figures, name: string, run: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const result = await run();
  figures[name] = performance.now() - started;
  return result;
}

async function measure(jobs: number, dir: string): Promise<Figures> {
  const figures: Figures = {};
  const store = new DirectoryStore({ root: dir });
  const written: SyntheticJob[] = new Array(jobs);
  await time(figures, "generate (not a query)", async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < jobs) {
          const index = next++;
          written[index] = await writeSyntheticJob(store, index);
        }
      }),
    );
  });
  const snapshot = await time(figures, "read: list + parse records", () => readLineage(store));
  const graph = await time(figures, "build graph", () => LineageGraph.of(snapshot));
  const pick = (i: number) => written[(i * 7919) % jobs] as SyntheticJob;
  await time(figures, `trace x${QUERIES} (reply audio)`, () => {
    for (let i = 0; i < QUERIES; i++) trace(graph, pick(i).artifacts.replyAudio.key);
  });
  await time(figures, `impact x${QUERIES} (source)`, () => {
    for (let i = 0; i < QUERIES; i++) impact(graph, pick(i).source.key);
  });
  await time(figures, "boundaries (all)", () => boundaries(graph));
  await time(figures, "export (all events, serialised)", () => {
    let bytes = 0;
    for (const event of openLineageEvents(graph, { bucket: store.bucket }))
      bytes += JSON.stringify(event).length;
    return bytes;
  });
  await time(figures, "trace one artifact as the CLI does", async () => {
    const key = pick(3).artifacts.replyAudio.key;
    const jobId = jobIdOfArtifactName(key);
    return trace(LineageGraph.of(await readLineage(store, jobId ? { jobId } : {})), key);
  });
  await time(figures, "verify one job (read + check)", async () => {
    const jobId = pick(1).jobId;
    return verify(store, LineageGraph.of(await readLineage(store, { jobId })), { jobId });
  });
  const result = await time(figures, "verify all (re-hash every artifact)", () => verify(store, graph));
  if (!result.ok) throw new Error(`verify found ${result.issues.length} problem(s) in synthetic lineage`);
  figures["records read"] = snapshot.activities.length;
  figures["artifacts re-hashed"] = result.artifactsChecked;
  return figures;
}

const sizes = [Math.max(1, Math.round(largest / 10)), largest];
const results: Figures[] = [];
for (const [index, jobs] of sizes.entries()) {
  const keep = index === sizes.length - 1 && values.keep ? resolve(values.keep) : undefined;
  const dir = keep ?? (await mkdtemp(join(tmpdir(), "voxtrail-bench-lineage-")));
  process.stderr.write(`${jobs} jobs in ${dir} ...\n`);
  try {
    results.push(await measure(jobs, dir));
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}

const [small, large] = results as [Figures, Figures];
const names = Object.keys(large);
const width = Math.max(...names.map((name) => name.length));
const cell = (name: string, value: number) =>
  (name === "records read" || name === "artifacts re-hashed"
    ? String(value)
    : `${(value / 1000).toFixed(2)} s`
  ).padStart(10);
process.stdout.write(
  `lineage queries, node ${process.version}, directory store on ${tmpdir()}\n` +
    `${"".padEnd(width)}  ${`${sizes[0]} jobs`.padStart(10)}  ${`${sizes[1]} jobs`.padStart(10)}  ratio\n`,
);
for (const name of names) {
  const a = small[name] ?? 0;
  const b = large[name] ?? 0;
  process.stdout.write(
    `${name.padEnd(width)}  ${cell(name, a)}  ${cell(name, b)}  ${a > 0 ? (b / a).toFixed(1) : "-"}x\n`,
  );
}
