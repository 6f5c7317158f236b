/**
 * `npm run bench`: every comparison of issue 9, side by side in one run, ratios printed; results
 * written to bench/results/results.json and bench/results/results.md (with the date and machine).
 * The machine is shared, so each comparison runs its two sides in the same run, alternating where
 * it can, and the ratios are the figures to read. Meant to finish in under ten minutes on 2 cores.
 *
 *   npm run bench
 *   npm run bench -- --only overhead,memory    # some sections (overhead, memory, manifest, accuracy, wer, prompts, lineage, bundles)
 *   npm run bench -- --lineage-jobs 2000       # a smaller lineage store
 *   npm run bench -- --fresh-lineage           # regenerate the lineage store even if one is kept
 *   npm run bench -- --only bundles --import-rounds 9   # more import rounds per Lambda bundle (default 5)
 *
 * Writing 10,000 synthetic jobs takes minutes here, so the lineage store is kept in the OS temp
 * directory (named after the job count and the generator's hash) and reused by later runs; only
 * the queries are what is measured.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { benchBundles, bundlesTable } from "./bundle-sizes";
import { benchLineageQueries, lineageTable } from "./lineage-queries";
import { describeMachine } from "./machine";
import { benchManifestMemory } from "./manifest-memory";
import { benchMeasurementAccuracy } from "./measurement-accuracy";
import { benchOverhead } from "./overhead";
import { benchPromptsScaling, promptsScalingTable } from "./prompts-scaling";
import { type BenchResults, resultsMarkdown } from "./results-markdown";
import { benchStreamingMemory } from "./streaming-memory";
import { benchTranscriptionWer } from "./transcription-wer";

const SECTIONS = [
  "overhead",
  "memory",
  "manifest",
  "accuracy",
  "wer",
  "prompts",
  "lineage",
  "bundles",
] as const;
type Section = (typeof SECTIONS)[number];

const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    "lineage-jobs": { type: "string", default: "10000" },
    voicemails: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    "import-rounds": { type: "string", default: "5" },
    "fresh-lineage": { type: "boolean", default: false },
  },
});
const only = new Set((values.only?.split(",") ?? SECTIONS) as Section[]);
for (const section of only) {
  if (!SECTIONS.includes(section))
    throw new Error(`unknown section ${section}; sections: ${SECTIONS.join(", ")}`);
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const results: BenchResults = { machine: describeMachine(), wallMs: {}, failures: {} };
const started = performance.now();

async function section(name: Section, run: () => Promise<void>): Promise<void> {
  if (!only.has(name)) return;
  const sectionStarted = performance.now();
  try {
    await run();
  } catch (error) {
    results.failures[name] = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log(`${name} failed: ${results.failures[name]}`);
  }
  results.wallMs[name] = Math.round(performance.now() - sectionStarted);
  log(`${name}: ${(results.wallMs[name] / 1000).toFixed(1)} s`);
}

await section("overhead", async () => {
  results.overhead = await benchOverhead({
    voicemails: Number(values.voicemails),
    concurrency: 2,
    rounds: Number(values.rounds),
    log,
  });
});
await section("memory", async () => {
  results.streamingMemory = await benchStreamingMemory({ log });
});
await section("manifest", async () => {
  results.manifestMemory = await benchManifestMemory({ log });
});
await section("accuracy", async () => {
  results.measurementAccuracy = await benchMeasurementAccuracy({ log });
});
await section("wer", async () => {
  results.transcriptionWer = await benchTranscriptionWer({ log });
});
await section("prompts", async () => {
  results.promptsScaling = await benchPromptsScaling({ log: (line) => log(`prompts: ${line}`) });
  log(promptsScalingTable(results.promptsScaling));
});
await section("lineage", async () => {
  const jobs = Number(values["lineage-jobs"]);
  const generator = await readFile(new URL("../packages/lineage/test/synthetic-jobs.ts", import.meta.url));
  const hash = createHash("sha256").update(generator).digest("hex").slice(0, 12);
  const kept = join(tmpdir(), `voxtrail-bench-lineage-${jobs}-${hash}`);
  const complete = `${kept}.complete`;
  const reuse = existsSync(complete) && !values["fresh-lineage"];
  if (!reuse) await rm(kept, { recursive: true, force: true });
  results.lineageQueries = await benchLineageQueries({
    jobs,
    ...(reuse ? { store: kept } : { keep: kept }),
    repeat: 1,
    questions: "core",
    log,
  });
  if (!reuse) await writeFile(complete, `${new Date().toISOString()}\n`);
  log(lineageTable(results.lineageQueries));
});
await section("bundles", async () => {
  results.bundles = await benchBundles({ rounds: Number(values["import-rounds"]), log });
  log(bundlesTable(results.bundles));
});
results.wallMs.total = Math.round(performance.now() - started);

const markdown = resultsMarkdown(results);
await mkdir(RESULTS_DIR, { recursive: true });
await writeFile(`${RESULTS_DIR}results.json`, `${JSON.stringify(results, null, 2)}\n`);
await writeFile(`${RESULTS_DIR}results.md`, markdown);
// Formatted as `biome check` wants them, so the repository's check passes with the results in it.
await promisify(execFile)("npx", [
  "biome",
  "format",
  "--write",
  `${RESULTS_DIR}results.json`,
  `${RESULTS_DIR}results.md`,
]);
process.stdout.write(markdown);
log(`wrote ${RESULTS_DIR}results.json and results.md`);
if (Object.keys(results.failures).length > 0) process.exitCode = 1;
