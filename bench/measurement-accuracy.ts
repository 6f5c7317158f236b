/**
 * Measurement accuracy: the local Sonic endpoint injects a known first-audio delay and a known
 * stall (faults.ts: `firstByteDelayMs`, `stall`), and the Sonic client, through the real SageMaker
 * Runtime client, records `synthesize.ttfb` and `synthesize.maxGap`. The error is recorded minus
 * injected, per setting, over several runs; flite's speech is rendered before anything is timed,
 * so only the endpoint's delays are under test (as in injected-delay.test.ts).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { DEFAULT_REPLY_FORMAT, localSonicSynthesizer, startSonicEndpoint } from "@voxtrail/local";
import { RepeatingFlite } from "./repeating-flite";
import { median, round1 } from "./stats";

const SENTENCE = "Thanks for calling back, we will ring you tomorrow. ";

/** One injected setting and what was recorded, over its runs. */
export interface AccuracyRow {
  injectedFirstAudioMs: number;
  injectedStallMs: number;
  runs: number;
  recordedTtfbMs: number[];
  recordedMaxGapMs: number[];
  /** Median recorded minus injected. */
  ttfbErrorMs: number;
  stallErrorMs: number;
  /** Largest recorded minus injected over the runs. */
  ttfbMaxErrorMs: number;
  stallMaxErrorMs: number;
  /** How late this process's timers fired at most while the runs ran (shared machine). */
  eventLoopLateMs: number;
}

/** Runs each setting `runs` times; see the file's comment. */
export async function benchMeasurementAccuracy(
  options: {
    settings?: Array<{ firstAudioMs: number; stallMs: number }>;
    runs?: number;
    log?: (line: string) => void;
  } = {},
): Promise<AccuracyRow[]> {
  const settings = options.settings ?? [
    { firstAudioMs: 200, stallMs: 100 },
    { firstAudioMs: 800, stallMs: 300 },
  ];
  const runs = options.runs ?? 5;
  const engine = new RepeatingFlite(SENTENCE);
  await engine.prerender();
  const text = engine.textFor(2);
  const rows: AccuracyRow[] = [];
  for (const setting of settings) {
    const endpoint = await startSonicEndpoint({
      engine,
      faults: { firstByteDelayMs: setting.firstAudioMs, stall: { afterChunk: 5, ms: setting.stallMs } },
    });
    const synthesizer = localSonicSynthesizer(endpoint);
    const ttfb: number[] = [];
    const maxGap: number[] = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    try {
      // One untimed run first: the SDK's first send() builds what later ones reuse.
      for (let run = 0; run <= runs; run++) {
        if (run === 1) loopDelay.enable();
        const stream = synthesizer.synthesize({ text, language: "en", format: DEFAULT_REPLY_FORMAT });
        for await (const _ of stream) {
          // drain
        }
        if (run === 0) continue;
        const timings = Object.fromEntries(stream.timings().map((timing) => [timing.name, timing.ms]));
        ttfb.push(timings["synthesize.ttfb"] ?? Number.NaN);
        maxGap.push(timings["synthesize.maxGap"] ?? Number.NaN);
      }
    } finally {
      loopDelay.disable();
      await endpoint.close();
    }
    const row: AccuracyRow = {
      injectedFirstAudioMs: setting.firstAudioMs,
      injectedStallMs: setting.stallMs,
      runs,
      recordedTtfbMs: ttfb.map(round1),
      recordedMaxGapMs: maxGap.map(round1),
      ttfbErrorMs: round1(median(ttfb) - setting.firstAudioMs),
      stallErrorMs: round1(median(maxGap) - setting.stallMs),
      ttfbMaxErrorMs: round1(Math.max(...ttfb) - setting.firstAudioMs),
      stallMaxErrorMs: round1(Math.max(...maxGap) - setting.stallMs),
      eventLoopLateMs: round1(loopDelay.max / 1e6),
    };
    options.log?.(
      `accuracy: injected first audio ${setting.firstAudioMs} ms / stall ${setting.stallMs} ms; ` +
        `median error ${row.ttfbErrorMs} / ${row.stallErrorMs} ms`,
    );
    rows.push(row);
  }
  return rows;
}
