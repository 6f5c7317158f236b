/**
 * `npm run bench`: every comparison of issue 9, side by side in one run, ratios printed; results
 * written to bench/results/results.json and bench/results/results.md (with the date and machine).
 * A run of some sections (`--only`) writes its results under the OS temp directory instead and
 * prints where: bench/results/ holds the latest full run, never a partial one.
 * The machine is shared, so each comparison runs its two sides in the same run, alternating where
 * it can, and the ratios are the figures to read. Most sections take seconds to minutes on 2
 * cores; index, verify and facts take far longer (see docs/benchmarks.md).
 *
 *   npm run bench
 *   npm run bench -- --only overhead,memory    # some sections (overhead, memory, manifest, accuracy, wer, facts, ttfb, prompts, lineage, index, verify, bundles, cli)
 *   npm run bench -- --only overhead --voicemails 20 --transcriber simulated   # issue 42's overhead figure (see bench/overhead.ts)
 *   npm run bench -- --lineage-jobs 2000       # a smaller lineage store (lineage, and index's record-walking side)
 *   npm run bench -- --only index --index-jobs 20000   # a smaller index-only store (default 100,000)
 *   npm run bench -- --fresh-lineage           # regenerate the lineage store even if one is kept
 *   npm run bench -- --only bundles --import-rounds 15  # more import rounds per Lambda bundle (default 9)
 *   npm run bench -- --only verify --verify-rounds 3   # fewer rounds of full verify vs sha256sum (default 5)
 *   npm run bench -- --only facts --fact-scripts 3      # the first 3 scripts of each half (default all 24: ~23 min)
 *   npm run bench -- --only ttfb --ttfb-rounds 3        # fewer passes over the replies per side (default 5)
 *   npm run bench -- --only cli --cli-rounds 15         # more rounds of the installed CLI's commands (default 9)
 *
 * Writing 10,000 synthetic jobs takes minutes here, so the lineage store is kept in the OS temp
 * directory (named after the job count and the generator's hash) and reused by later runs; only
 * the queries are what is measured. The `index` section keeps its 100,000-job index the same way.
 * The `verify` section times `lineage verify` against `sha256sum` over the files it reads, in that
 * store (signing it a digest the first time: see bench/verify-speed.ts).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { speakersNamed } from "../tools/eval/accuracy-speakers";
import { benchFactAccuracy } from "../tools/eval/fact-accuracy";
import { factAccuracyTable } from "../tools/eval/fact-accuracy-table";
import { benchTranscriptionWer } from "../tools/eval/transcription-wer";
import { benchBundles, bundlesTable } from "./bundle-sizes";
import { benchCliStartup, cliStartupTable } from "./cli-startup";
import { benchFirstUse, firstUseTable } from "./first-use";
import { benchLineageIndex, lineageIndexTable } from "./lineage-index";
import {
  benchLineageQueries,
  type KeptLineageStore,
  keptLineageStore,
  lineageTable,
} from "./lineage-queries";
import { describeMachine } from "./machine";
import { benchManifestMemory } from "./manifest-memory";
import { benchMeasurementAccuracy } from "./measurement-accuracy";
import { benchOverhead, type OverheadTranscriber } from "./overhead";
import { benchPromptsScaling, promptsScalingTable } from "./prompts-scaling";
import { type BenchResults, resultsMarkdown } from "./results-markdown";
import { benchStreamingMemory } from "./streaming-memory";
import { benchSynthesisTtfb, synthesisTtfbTable } from "./synthesis-ttfb";
import { benchVerifySpeed, verifySpeedTable } from "./verify-speed";

const SECTIONS = [
  "overhead",
  "memory",
  "manifest",
  "accuracy",
  "wer",
  "facts",
  "speakers",
  "ttfb",
  "prompts",
  "lineage",
  "index",
  "verify",
  "bundles",
  "cli",
] as const;
type Section = (typeof SECTIONS)[number];

const FULL_RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    "lineage-jobs": { type: "string", default: "10000" },
    "index-jobs": { type: "string", default: "100000" },
    voicemails: { type: "string", default: "3" },
    transcriber: { type: "string", default: "pocketsphinx" },
    rounds: { type: "string", default: "3" },
    "import-rounds": { type: "string", default: "9" },
    "verify-rounds": { type: "string", default: "5" },
    "fact-scripts": { type: "string" },
    "ttfb-rounds": { type: "string", default: "5" },
    "cli-rounds": { type: "string", default: "9" },
    "fresh-lineage": { type: "boolean", default: false },
  },
});
const only = new Set((values.only?.split(",") ?? SECTIONS) as Section[]);
const transcriber = values.transcriber as OverheadTranscriber;
if (transcriber !== "pocketsphinx" && transcriber !== "simulated") {
  throw new Error(`unknown transcriber ${transcriber}; transcribers: pocketsphinx, simulated`);
}
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
    transcriber,
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
await section("facts", async () => {
  const scripts = values["fact-scripts"] === undefined ? undefined : Number(values["fact-scripts"]);
  results.factAccuracy = await benchFactAccuracy({ log, ...(scripts === undefined ? {} : { scripts }) });
  log(factAccuracyTable(results.factAccuracy));
});
await section("speakers", async () => {
  // Voices no tuning step has heard, on scripts none has read, as a phone line delivers them.
  const scripts = values["fact-scripts"] === undefined ? undefined : Number(values["fact-scripts"]);
  results.heldOutSpeakers = await benchFactAccuracy({
    log,
    voices: speakersNamed("held-out").map((speaker) => speaker.id),
    splits: ["held-out"],
    deliveries: ["telephony"],
    ...(scripts === undefined ? {} : { scripts }),
  });
  log(factAccuracyTable(results.heldOutSpeakers));
});
await section("ttfb", async () => {
  results.synthesisTtfb = await benchSynthesisTtfb({ rounds: Number(values["ttfb-rounds"]), log });
  log(synthesisTtfbTable(results.synthesisTtfb));
});
await section("prompts", async () => {
  results.promptsScaling = await benchPromptsScaling({ log: (line) => log(`prompts: ${line}`) });
  log(promptsScalingTable(results.promptsScaling));
});
// The synthetic store the lineage and index sections share: written (or rewritten) once a run.
let lineageStore: Promise<KeptLineageStore> | undefined;
const keptStore = () =>
  (lineageStore ??= keptLineageStore(Number(values["lineage-jobs"]), {
    fresh: values["fresh-lineage"] ?? false,
    log,
  }));
await section("lineage", async () => {
  const kept = await keptStore();
  const measured = await benchLineageQueries({
    jobs: Number(values["lineage-jobs"]),
    store: kept.dir,
    repeat: 1,
    questions: "core",
    log,
  });
  results.lineageQueries = { ...measured, generateMs: kept.generateMs };
  log(lineageTable(results.lineageQueries));
});
await section("index", async () => {
  results.lineageIndex = await benchLineageIndex({
    store: (await keptStore()).dir,
    indexJobs: Number(values["index-jobs"]),
    log: (line) => log(`index: ${line}`),
  });
  log(lineageIndexTable(results.lineageIndex));
});
await section("verify", async () => {
  results.verifySpeed = await benchVerifySpeed({
    store: (await keptStore()).dir,
    rounds: Number(values["verify-rounds"]),
    log,
  });
  log(verifySpeedTable(results.verifySpeed));
});
await section("bundles", async () => {
  const rounds = Number(values["import-rounds"]);
  results.bundles = await benchBundles({ rounds, log });
  log(bundlesTable(results.bundles));
  const packages = [...new Set(results.bundles.rows.flatMap((row) => row.firstUse))];
  results.firstUse = await benchFirstUse({ packages, rounds, log });
  log(firstUseTable(results.firstUse, rounds));
});
await section("cli", async () => {
  results.cliStartup = await benchCliStartup({
    indexJobs: Number(values["index-jobs"]),
    rounds: Number(values["cli-rounds"]),
    log,
  });
  log(cliStartupTable(results.cliStartup));
});
results.wallMs.total = Math.round(performance.now() - started);

const markdown = resultsMarkdown(results);
const RESULTS_DIR =
  values.only === undefined
    ? FULL_RESULTS_DIR
    : `${await mkdtemp(join(tmpdir(), `voxtrail-bench-results-${[...only].join("-")}-`))}/`;
await mkdir(RESULTS_DIR, { recursive: true });
await writeFile(`${RESULTS_DIR}results.json`, `${JSON.stringify(results, null, 2)}\n`);
await writeFile(`${RESULTS_DIR}results.md`, markdown);
// Formatted as `biome check` wants them, so the repository's check passes with the results in it
// (biome formats files inside the repository only, and a partial run's are outside it).
if (RESULTS_DIR === FULL_RESULTS_DIR) {
  await promisify(execFile)("npx", [
    "biome",
    "format",
    "--write",
    `${RESULTS_DIR}results.json`,
    `${RESULTS_DIR}results.md`,
  ]);
}
process.stdout.write(markdown);
log(`wrote ${RESULTS_DIR}results.json and results.md`);
if (Object.keys(results.failures).length > 0) process.exitCode = 1;
