/**
 * IVR prompts throughput against the local Sonic endpoint: one prompts job of `prompts` rows at
 * each Map concurrency (1, 2, 4 and 8 by default), through the real workflow (PreparePrompts, the
 * Map, WritePromptsReport), handlers, SageMaker Runtime client and endpoint wire format, with a
 * fixed latency injected at the endpoint: the first audio leaves `firstByteDelayMs` after the
 * request, then one 20 ms chunk every `interChunkDelayMs`. The speech is flite's, rendered once
 * before anything is timed ({@link RepeatingFlite}): flite runs one child process at a time and on
 * a small machine its CPU cost would swamp the latency being measured. Each concurrency gets a
 * fresh store; the figure is rows over the whole job's wall time.
 *
 *   npx tsx bench/prompts-scaling.ts                         # 32 prompts per job
 *   npx tsx bench/prompts-scaling.ts --prompts 64 --first-byte-ms 500
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { PromptsRuntime } from "@voxtrail/local";
import { RepeatingFlite } from "./repeating-flite";

/** Options of {@link benchPromptsScaling}; every one has a default. */
export interface PromptsScalingOptions {
  /** Rows per job (default 32). */
  prompts?: number;
  /** Map concurrencies to measure (default 1, 2, 4, 8). */
  concurrencies?: number[];
  /** Injected time from request to first audio, in ms (default 300). */
  firstByteDelayMs?: number;
  /** Injected pause between audio chunks, in ms (default 5). */
  interChunkDelayMs?: number;
  /** Progress lines (stderr when run directly). */
  log?: (line: string) => void;
}

/** One concurrency's figures. */
export interface PromptsScalingRow {
  concurrency: number;
  prompts: number;
  seconds: number;
  promptsPerSecond: number;
  /** promptsPerSecond over that of the first concurrency measured. */
  speedUp: number;
  /** Median time to first audio the synthesizer recorded. */
  ttfbP50Ms: number;
}

/** What {@link benchPromptsScaling} measured, and under which injected latency. */
export interface PromptsScalingResult {
  firstByteDelayMs: number;
  interChunkDelayMs: number;
  audioSecondsPerPrompt: number;
  rows: PromptsScalingRow[];
}

const SENTENCE = "Thanks for calling. ";

/**
 * Measures prompts per second at each concurrency.
 *
 * @example
 * const { rows } = await benchPromptsScaling({ prompts: 16 });
 * rows.map((row) => [row.concurrency, row.promptsPerSecond]);
 */
export async function benchPromptsScaling(
  options: PromptsScalingOptions = {},
): Promise<PromptsScalingResult> {
  const prompts = options.prompts ?? 32;
  const concurrencies = options.concurrencies ?? [1, 2, 4, 8];
  const firstByteDelayMs = options.firstByteDelayMs ?? 300;
  const interChunkDelayMs = options.interChunkDelayMs ?? 5;
  const log = options.log ?? (() => undefined);
  const engine = new RepeatingFlite(SENTENCE);
  const audioSecondsPerPrompt = await engine.prerender();
  const workDir = await mkdtemp(join(tmpdir(), "voxtrail-bench-prompts-"));
  const rows: PromptsScalingRow[] = [];
  try {
    const manifest = join(workDir, "prompts.csv");
    const lines = Array.from({ length: prompts }, (_, index) => `p${index + 1},${SENTENCE.trim()}`);
    await writeFile(manifest, `id,text\n${lines.join("\n")}\n`);
    for (const concurrency of concurrencies) {
      const runtime = await PromptsRuntime.start({
        storeDir: join(workDir, `store-c${concurrency}`),
        concurrency,
        endpoint: { engine, faults: { firstByteDelayMs, interChunkDelayMs } },
      });
      try {
        const started = performance.now();
        const result = await runtime.run(manifest);
        const seconds = (performance.now() - started) / 1000;
        const totals = result.report?.totals;
        if (result.status !== "SUCCEEDED" || totals?.succeeded !== prompts) {
          throw new Error(`the job at concurrency ${concurrency} did not synthesize every prompt`);
        }
        const ttfbs = (result.report?.prompts ?? []).map((p) => p.ttfbMs ?? 0).sort((a, b) => a - b);
        const promptsPerSecond = prompts / seconds;
        rows.push({
          concurrency,
          prompts,
          seconds,
          promptsPerSecond,
          speedUp: promptsPerSecond / (rows[0]?.promptsPerSecond ?? promptsPerSecond),
          ttfbP50Ms: ttfbs[Math.ceil(ttfbs.length / 2) - 1] ?? 0,
        });
        log(`concurrency ${concurrency}: ${promptsPerSecond.toFixed(2)} prompts/s`);
      } finally {
        await runtime.close();
      }
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  return { firstByteDelayMs, interChunkDelayMs, audioSecondsPerPrompt, rows };
}

/** The result as a plain-text table. */
export function promptsScalingTable(result: PromptsScalingResult): string {
  return [
    `IVR prompts against the local Sonic endpoint: first audio after ${result.firstByteDelayMs} ms, ` +
      `${result.interChunkDelayMs} ms between 20 ms chunks, ${result.audioSecondsPerPrompt.toFixed(2)} s of audio per prompt`,
    "concurrency  prompts  seconds  prompts/s  speed-up  ttfb p50",
    ...result.rows.map(
      (row) =>
        `${String(row.concurrency).padStart(11)}  ${String(row.prompts).padStart(7)}  ${row.seconds.toFixed(2).padStart(7)}  ${row.promptsPerSecond.toFixed(2).padStart(9)}  ${`${row.speedUp.toFixed(2)}x`.padStart(8)}  ${`${Math.round(row.ttfbP50Ms)} ms`.padStart(8)}`,
    ),
    "",
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      prompts: { type: "string", default: "32" },
      "first-byte-ms": { type: "string", default: "300" },
      "chunk-gap-ms": { type: "string", default: "5" },
    },
  });
  const result = await benchPromptsScaling({
    prompts: Number(values.prompts),
    firstByteDelayMs: Number(values["first-byte-ms"]),
    interChunkDelayMs: Number(values["chunk-gap-ms"]),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(promptsScalingTable(result));
}
