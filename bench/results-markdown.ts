import type { FactAccuracyResult } from "../tools/eval/fact-accuracy";
import type { TranscriptionWerResult } from "../tools/eval/transcription-wer";
import { type BundlesResult, kb, mismatchLabel } from "./bundle-sizes";
import type { CliStartupResult } from "./cli-startup";
import type { FirstUseResult } from "./first-use";
import { type LineageIndexResult, times, type WayFigures } from "./lineage-index";
import type { LineageQueryResult } from "./lineage-queries";
import type { Machine } from "./machine";
import type { ManifestMemoryResult } from "./manifest-memory";
import type { AccuracyRow } from "./measurement-accuracy";
import type { OverheadResult } from "./overhead";
import type { PromptsScalingResult } from "./prompts-scaling";
import type { StreamingMemoryResult } from "./streaming-memory";
import type { SynthesisTtfbResult } from "./synthesis-ttfb";
import type { VerifySpeedResult } from "./verify-speed";

/** Everything one `npm run bench` measured. */
export interface BenchResults {
  machine: Machine;
  /** Wall time of each section and of the whole run, ms. */
  wallMs: Record<string, number>;
  overhead?: OverheadResult;
  streamingMemory?: StreamingMemoryResult;
  manifestMemory?: ManifestMemoryResult;
  measurementAccuracy?: AccuracyRow[];
  transcriptionWer?: TranscriptionWerResult;
  factAccuracy?: FactAccuracyResult;
  /** Fact accuracy of the held-out speakers: held-out scripts, telephony copies. */
  heldOutSpeakers?: FactAccuracyResult;
  synthesisTtfb?: SynthesisTtfbResult;
  promptsScaling?: PromptsScalingResult;
  lineageQueries?: LineageQueryResult;
  lineageIndex?: LineageIndexResult;
  verifySpeed?: VerifySpeedResult;
  bundles?: BundlesResult;
  cliStartup?: CliStartupResult;
  firstUse?: FirstUseResult[];
  /** Sections that threw, with the error's message. */
  failures: Record<string, string>;
}

const seconds = (ms: number) =>
  ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** The results as the markdown table bench/results/results.md holds and docs/benchmarks.md quotes. */
export function resultsMarkdown(results: BenchResults): string {
  const { machine } = results;
  const out: string[] = [
    "# voxtrail benchmarks",
    "",
    `Run ${machine.date} on ${machine.nproc} CPU(s) (${machine.cpuModel}), ${machine.memoryGb} GB, ` +
      `Node ${machine.node}, ${machine.platform}; load average ${machine.loadAverage} at the start ` +
      `(a shared machine: compare the ratios, not the absolute times). \`npm run bench\` took ` +
      `${seconds(results.wallMs.total ?? 0)}.`,
    "",
    "| comparison | figures | ratio |",
    "|---|---|---|",
  ];
  const { overhead, streamingMemory, measurementAccuracy, lineageQueries } = results;
  if (overhead) {
    out.push(
      `| Overhead per voicemail (issue 42), engines' time set aside: ${overhead.voicemails.length} voicemails, concurrency ${overhead.concurrency}, transcriber ${overhead.transcriber}; median of each side's pass medians (${overhead.rounds} alternating passes) | pipeline ${overhead.pipelinePassNonEngineMs.map(Math.round).join(", ")} ms vs plain loop ${overhead.directPassNonEngineMs.map(Math.round).join(", ")} ms: **${Math.round(overhead.overheadPerVoicemailMs)} ms per voicemail** (\`overheadPerVoicemailMs\`) | - |`,
    );
    out.push(
      `| Overhead with the store's flushes set aside: the same, the pipeline's directory store not flushing its writes (\`durable: false\`), a third side of the same rounds | unflushed pipeline ${overhead.unflushedPassNonEngineMs.map(Math.round).join(", ")} ms: **${Math.round(overhead.overheadWithoutFlushesPerVoicemailMs)} ms per voicemail**; the flushes **${Math.round(overhead.flushesPerVoicemailMs)} ms** (\`flushesPerVoicemailMs\`) | - |`,
    );
    out.push(
      `| Overhead, engines' time set aside: per voicemail, pipeline wall time minus its engines' (transcription, reasoning, synthesis stream) vs the same for the plain loop | ${Math.round(overhead.pipelineNonEngineMsPerItem)} ms vs ${Math.round(overhead.directNonEngineMsPerItem)} ms: **${Math.round(overhead.nonEngineOverheadPerItemMs)} ms per voicemail** added by the pipeline | - |`,
    );
    out.push(
      `| Overhead: ${overhead.voicemails.length} voicemails, concurrency ${overhead.concurrency}, pipeline (LocalRuntime) vs the same engines in a plain loop (median of ${overhead.rounds} alternating passes each) | ${seconds(overhead.pipelineMedianMs)} vs ${seconds(overhead.directMedianMs)}; **${Math.round(overhead.overheadPerItemMs)} ms per voicemail**; passes ${overhead.pipelineMs.map((ms) => (ms / 1000).toFixed(1)).join(", ")} s vs ${overhead.directMs.map((ms) => (ms / 1000).toFixed(1)).join(", ")} s; runtime start ${Math.round(overhead.pipelineStartMs)} ms (not included)${overhead.allSucceeded ? "" : "; NOT every job succeeded"} | **${overhead.ratio.toFixed(2)}x** |`,
    );
  }
  if (streamingMemory) {
    const { short, long } = streamingMemory;
    out.push(
      `| Streaming memory: peak RSS synthesizing a ${long.audioSeconds} s reply vs a ${short.audioSeconds} s one (${streamingMemory.lengthRatio}x longer), each in its own process, Synthesize handler -> local Sonic endpoint -> directory store | ${long.peakMb} MB vs ${short.peakMb} MB (${long.peakBeforeMb} / ${short.peakBeforeMb} MB before the synthesis); ${seconds(long.ms)} vs ${seconds(short.ms)} | **${streamingMemory.ratio.toFixed(2)}x** |`,
      `| Streaming memory retained: most memory reachable after a collection (heap used + array buffers, garbage collected every 250 ms, a separate run of each) | ${long.retainedMb} MB vs ${short.retainedMb} MB | **${streamingMemory.retainedRatio.toFixed(2)}x** |`,
    );
  }
  for (const row of measurementAccuracy ?? []) {
    out.push(
      `| Measurement accuracy: injected first audio ${row.injectedFirstAudioMs} ms, stall ${row.injectedStallMs} ms (${row.runs} runs) | recorded ttfb median ${median(row.recordedTtfbMs)} ms (error ${signed(row.ttfbErrorMs)}, worst ${signed(row.ttfbMaxErrorMs)}); largest gap median ${median(row.recordedMaxGapMs)} ms (error ${signed(row.stallErrorMs)}, worst ${signed(row.stallMaxErrorMs)}); event loop late up to ${row.eventLoopLateMs} ms | ttfb ${(median(row.recordedTtfbMs) / row.injectedFirstAudioMs).toFixed(3)}x, stall ${(median(row.recordedMaxGapMs) / row.injectedStallMs).toFixed(3)}x |`,
    );
  }
  const wer = results.transcriptionWer;
  if (wer) {
    const perVoicemail = (delivery: "wideband" | "telephony") =>
      wer.rows
        .filter((row) => row.delivery === delivery)
        .map((row) => `${row.voicemail} ${row.wer.toFixed(3)}`)
        .join(", ");
    out.push(
      `| Transcription accuracy (${wer.engine}): word error rate over the ${wer.rows.length / 2} bundled voicemails, 8 kHz mu-law telephony copies vs 16 kHz originals | **${wer.corpusWer.telephony.toFixed(3)} vs ${wer.corpusWer.wideband.toFixed(3)}**; telephony: ${perVoicemail("telephony")}; wideband: ${perVoicemail("wideband")} | ${wer.ratio.toFixed(2)}x |`,
    );
  }
  const manifest = results.manifestMemory;
  if (manifest) {
    const { small, longLine } = manifest;
    out.push(
      `| Manifest memory: PreparePrompts over a ${(longLine.manifestBytes / 1e6).toFixed(1)} MB manifest with one ${((longLine.manifestBytes - small.manifestBytes) / 1e6).toFixed(1)} MB line vs a ${(small.manifestBytes / 1000).toFixed(1)} KB one, each in its own process: peak RSS increase during the handler | ${longLine.increaseMb} MB vs ${small.increaseMb} MB (peaks ${longLine.peakMb} / ${small.peakMb} MB); ${longLine.rows} rows and ${longLine.badRows} bad vs ${small.rows} and ${small.badRows}; ${seconds(longLine.ms)} vs ${seconds(small.ms)} | **+${manifest.extraMb} MB** (bound: 50 MB) |`,
    );
  }
  const ttfb = results.synthesisTtfb;
  if (ttfb) {
    const { sentences, today, whole } = ttfb.sides;
    const percentiles = (side: typeof sentences) =>
      `${Math.round(side.ttfbP50Ms)} / ${Math.round(side.ttfbP90Ms)} ms (wire ${Math.round(side.wireTtfbP50Ms)} / ${Math.round(side.wireTtfbP90Ms)}, set-up ${Math.round(side.clientSetupP50Ms)} / ${Math.round(side.clientSetupP90Ms)})`;
    out.push(
      `| Synthesis ttfb (p50 / p90): the local Sonic endpoint speaking the ${ttfb.replies.length} bundled voicemails' replies (${ttfb.replies.map((reply) => reply.sentences).join(", ")} sentences) through the SageMaker Runtime client, ${ttfb.rounds} alternating rounds: one sentence at a time vs the whole reply rendered first in a flite process started per call (before) | ${percentiles(sentences)} vs ${percentiles(today)}; whole reply on a flite process started ahead ${percentiles(whole)}; total p50 ${Math.round(sentences.totalP50Ms)} vs ${Math.round(today.totalP50Ms)} ms | **${ttfb.ratio.toFixed(2)}x** (${ttfb.streamingRatio.toFixed(2)}x of the whole reply started ahead) |`,
    );
  }
  const scaling = results.promptsScaling;
  for (const row of scaling?.rows ?? []) {
    out.push(
      `| Batch scaling: ${row.prompts} IVR prompts at Map concurrency ${row.concurrency}, endpoint latency fixed (first audio ${scaling?.firstByteDelayMs} ms, ${scaling?.interChunkDelayMs} ms between chunks) | ${row.promptsPerSecond.toFixed(2)} prompts/s (${seconds(row.seconds * 1000)}; ttfb p50 ${Math.round(row.ttfbP50Ms)} ms) | **${row.speedUp.toFixed(2)}x** vs concurrency ${scaling?.rows[0]?.concurrency} |`,
    );
  }
  if (lineageQueries) {
    for (const row of lineageQueries.rows) {
      const before = row.beforeMs === undefined ? "" : `${seconds(row.beforeMs)} reading every record vs `;
      out.push(
        `| Lineage over ${lineageQueries.jobs.toLocaleString("en-US")} jobs: \`${row.question}\` | ${before}${seconds(row.afterMs ?? 0)} as the command does it now | ${row.speedUp === undefined ? "-" : `${row.speedUp.toFixed(1)}x (records / summaries)`} |`,
      );
    }
    out.push(
      `| Lineage: writing the ${lineageQueries.jobs.toLocaleString("en-US")} synthetic jobs (setup, not measured) | ${lineageQueries.generateMs > 0 ? seconds(lineageQueries.generateMs) : "reused the store an earlier run kept"} | - |`,
    );
  }
  const index = results.lineageIndex;
  for (const scale of index ? [index.reindexed, index.generated] : []) {
    const jobs = scale.jobs.toLocaleString("en-US");
    const built =
      scale.built === "reindex"
        ? `reindexed from the records in ${seconds(scale.buildMs)}, then a compaction with nothing to do in ${seconds(scale.noopCompactMs ?? 0)}`
        : scale.buildMs > 0
          ? `generated directly as rows in ${seconds(scale.buildMs)}`
          : "generated directly as rows by an earlier run, reused";
    out.push(
      `| Lineage index over ${jobs} jobs (setup, not measured as a question): ${scale.days} day partitions, ${scale.files} Parquet files | ${scale.indexMb} MB on disk; ${built} | - |`,
    );
    for (const row of scale.rows) {
      const way = (figures: WayFigures) =>
        `${seconds(figures.questionMs)} (cpu ${seconds(figures.cpuMs)}; whole process ${seconds(figures.processMs)})`;
      const asked = `\`${row.question}\`, each in a fresh process (median of ${index?.rounds})`;
      const opening = `opening the index ${seconds(row.index.openMs)}`;
      out.push(
        row.records
          ? `| Lineage over ${jobs} jobs, from the summaries vs from the index: ${asked} | ${way(row.records)} vs ${way(row.index)}; ${opening}${row.sameAnswer ? "" : "; the answers DIFFER"} | **${times(row.ratio ?? Number.NaN)}** (whole process ${times(row.processRatio ?? Number.NaN)}) |`
          : `| Lineage index over ${jobs} jobs: ${asked} | ${way(row.index)}; ${opening} | ${row.index.questionMs < 1000 ? "under" : "**over**"} the 1 s bound |`,
      );
    }
  }
  const { factAccuracy, heldOutSpeakers } = results;
  const percent = ({ right, total }: { right: number; total: number }) =>
    `${right}/${total} (${total === 0 ? "-" : ((100 * right) / total).toFixed(1)}%)`;
  const stated = ({ right, held, statedWrong }: { right: number; held: number; statedWrong: number }) =>
    `${held} held for review, ${statedWrong} stated wrongly (stated ${right + statedWrong === 0 ? "-" : ((100 * right) / (right + statedWrong)).toFixed(1)}% right)`;
  if (factAccuracy) {
    for (const summary of factAccuracy.summaries) {
      if (
        summary.split === "all" ||
        summary.speakers !== "tuned" ||
        summary.voice !== "all" ||
        summary.noise !== "all" ||
        summary.delivery === "all"
      )
        continue;
      out.push(
        `| Fact accuracy, ${summary.split} scripts, ${summary.delivery} copies (the 4 tuned flite voices, line noise at ${factAccuracy.snrDb.light} and ${factAccuracy.snrDb.heavy} dB SNR), embedded transcriber and reasoner | WER ${summary.wer.toFixed(3)} over ${summary.clips} clips; records matched ${percent(summary.records)}; ${stated(summary.facts)} | **${percent(summary.facts)}**${summary.split === "held-out" && summary.delivery === "telephony" ? " (target 90%)" : ""} |`,
      );
    }
  }
  if (heldOutSpeakers) {
    for (const summary of heldOutSpeakers.summaries) {
      // The telephony summaries alone: the section measures no other delivery, so each "all
      // deliveries" summary is the same figure again.
      const telephony = summary.delivery === "telephony";
      if (summary.split === "all" || summary.speakers !== "held-out" || summary.noise !== "all" || !telephony)
        continue;
      const who = summary.voice === "all" ? "all held-out speakers" : `held-out speaker ${summary.voice}`;
      out.push(
        `| Fact accuracy, ${who}, held-out scripts, telephony copies (line noise at ${heldOutSpeakers.snrDb.light} and ${heldOutSpeakers.snrDb.heavy} dB SNR) | WER ${summary.wer.toFixed(3)} over ${summary.clips} clips; ${stated(summary.facts)} | **${percent(summary.facts)}**${summary.voice === "all" ? " (target 70%, stated 97% right)" : ""} |`,
      );
    }
  }
  const { verifySpeed } = results;
  if (verifySpeed) {
    const { sha256sum, sha256sumOne, jobs, files, rounds } = verifySpeed;
    for (const row of verifySpeed.rows) {
      out.push(
        `| Verify at the speed of the disk: \`lineage verify\` (${row.way}) over ${jobs.toLocaleString("en-US")} jobs vs \`sha256sum\` (one process) and \`sha256sum -P 2\` over the same ${files.toLocaleString("en-US")} files, alternating (min / median of ${rounds} rounds) | ${seconds(row.minMs)} / ${seconds(row.medianMs)} vs ${seconds(sha256sumOne.minMs)} / ${seconds(sha256sumOne.medianMs)} and ${seconds(sha256sum.minMs)} / ${seconds(sha256sum.medianMs)}; ${row.artifactsChecked.toLocaleString("en-US")} artifacts re-hashed | **${row.minRatioOne.toFixed(2)}x** of one, **${row.minRatio.toFixed(2)}x** of two (medians ${row.medianRatioOne.toFixed(2)}x, ${row.medianRatio.toFixed(2)}x; bound 2x) |`,
      );
    }
  }
  const { bundles } = results;
  if (bundles) {
    for (const row of bundles.rows) {
      out.push(
        `| Lambda bundle of ${row.fn} (\`${row.entry}\`, esbuild as sst builds it) vs one that only constructs an S3Client: size, and import time in a fresh node (median of ${bundles.rounds} alternating rounds) | ${kb(row.bytes)} vs ${kb(bundles.s3Only.bytes)} (${row.sizeRatio.toFixed(2)}x); import ${Math.round(row.importMedianMs)} ms vs ${Math.round(row.s3OnlyImportMedianMs)} ms; includes ${row.packages.join(", ") || "none of the heavy packages"}; providers beyond / missing from its stage's: ${mismatchLabel(row)}; loads on first use: ${row.firstUse.join(", ") || "nothing"} | **${row.importRatio.toFixed(2)}x** (CPU time ${row.importCpuRatio.toFixed(2)}x) |`,
      );
    }
  }
  const { cliStartup } = results;
  for (const row of cliStartup?.rows ?? []) {
    const floor = row.floor === "node" ? '`node -e ""`' : "`node` importing `@duckdb/node-api`";
    const index =
      row.floor === "duckdb" ? ` on a ${cliStartup?.indexJobs.toLocaleString("en-US")}-job index` : "";
    const floorCpu = cliStartup?.floorCpuMs?.[row.floor];
    const cpu =
      row.cpuMs === undefined || floorCpu === undefined
        ? ""
        : `; CPU ${seconds(row.cpuMs)} vs ${seconds(floorCpu)} (${signed(Math.round(row.cpuMs - floorCpu))})`;
    const required =
      row.floor === "duckdb" && cliStartup
        ? `; \`node\` requiring it, as the CLI loads it: ${seconds(cliStartup.floorMs.duckdbRequired)}`
        : "";
    out.push(
      `| CLI as installed from its tarball: \`${row.command.replace(/^voxtrail /, "")}\`${index} vs ${floor}, spawn to exit (median of ${cliStartup?.rounds} alternating rounds) | ${seconds(row.medianMs)} vs ${seconds(cliStartup?.floorMs[row.floor] ?? 0)}: **${signed(Math.round(row.overMs))}**${cpu}${required} | ${row.overMs <= row.boundMs ? "within" : "**over**"} the ${row.boundMs} ms target |`,
    );
  }
  for (const load of results.firstUse ?? []) {
    out.push(
      `| ${load.package} loaded on first use, after the S3 client (a fresh node per round, median of ${load.loadMs.length}) | ${Math.round(load.loadMedianMs)} ms (CPU ${Math.round(load.loadCpuMedianMs)} ms) | - |`,
    );
  }
  for (const [section, message] of Object.entries(results.failures)) {
    out.push(`| ${section} | FAILED: ${message.replaceAll("|", "/")} | - |`);
  }
  out.push(
    "",
    "Wall time per section: " +
      Object.entries(results.wallMs)
        .map(([section, ms]) => `${section} ${seconds(ms)}`)
        .join(", ") +
      ".",
    "",
  );
  return out.join("\n");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function signed(ms: number): string {
  return `${ms >= 0 ? "+" : ""}${ms} ms`;
}
