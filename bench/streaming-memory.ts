/**
 * Streaming memory: peak RSS of a process that synthesizes a reply of about 10 seconds, and one of
 * about 30 minutes, through the Synthesize stage handler, the Sonic client and the local endpoint,
 * into a directory store. Each synthesis runs in its own child process (streaming-memory-child.ts),
 * so each peak is clean; the endpoint runs here, with flite rendered once and repeated
 * (repeating-flite.ts), so a 30-minute reply needs no 30-minute flite run. Flat memory: a ratio
 * near 1. Each length also runs once more with garbage collected every 250 ms, for the memory the
 * synthesis retains: peak RSS also counts garbage V8 has not collected yet (each chunk's
 * short-lived buffers), which the retained figure leaves out.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startSonicEndpoint } from "@voxtrail/local";
import { RepeatingFlite } from "./repeating-flite";

const CHILD = fileURLToPath(new URL("./streaming-memory-child.ts", import.meta.url));
const SENTENCE = "Thanks for calling back, we have your order and will ring you tomorrow morning. ";

/** One child's figures. */
export interface SynthesisMemory {
  targetSeconds: number;
  /** Reply duration actually synthesized, seconds. */
  audioSeconds: number;
  replyBytes: number;
  /** Peak RSS of the child before the synthesis began (imports, store, clients), MB. */
  peakBeforeMb: number;
  /** Peak RSS of the child over its whole life, MB. */
  peakMb: number;
  /** Most memory reachable after a collection during the synthesis (heap used + array buffers), MB; a separate run. */
  retainedMb: number;
  /** Handler wall time, ms. */
  ms: number;
}

/** What {@link benchStreamingMemory} measured. */
export interface StreamingMemoryResult {
  short: SynthesisMemory;
  long: SynthesisMemory;
  /** Long peak over short peak. */
  ratio: number;
  /** Long retained over short retained. */
  retainedRatio: number;
  /** Long audio over short audio: how much longer the long reply is. */
  lengthRatio: number;
}

/** Runs the streaming-memory comparison; see the file's comment. */
export async function benchStreamingMemory(
  options: { shortSeconds?: number; longSeconds?: number; log?: (line: string) => void } = {},
): Promise<StreamingMemoryResult> {
  const engine = new RepeatingFlite(SENTENCE);
  await engine.prerender();
  const endpoint = await startSonicEndpoint({ engine });
  try {
    const measure = async (targetSeconds: number): Promise<SynthesisMemory> => {
      const text = engine.textFor(targetSeconds);
      const repeats = text.split(SENTENCE.trim()).length - 1;
      const run = async (flags: string[]) => {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [...flags, "--import", "tsx", CHILD, endpoint.url, SENTENCE, String(repeats)],
          { maxBuffer: 1024 * 1024 },
        );
        return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
      };
      const figures = await run([]);
      const retained = await run(["--expose-gc"]);
      const result: SynthesisMemory = {
        targetSeconds,
        audioSeconds: Math.round(figures.audioMs / 100) / 10,
        replyBytes: figures.replyBytes,
        peakBeforeMb: Math.round(figures.maxRssKbBefore / 102.4) / 10,
        peakMb: Math.round(figures.maxRssKb / 102.4) / 10,
        retainedMb: Math.round(retained.retainedPeakBytes / 104857.6) / 10,
        ms: figures.ms,
      };
      options.log?.(
        `streaming memory: ${result.audioSeconds} s of reply, peak RSS ${result.peakMb} MB (${result.peakBeforeMb} MB before), retained at most ${result.retainedMb} MB, ${(result.ms / 1000).toFixed(1)} s`,
      );
      return result;
    };
    const short = await measure(options.shortSeconds ?? 10);
    const long = await measure(options.longSeconds ?? 30 * 60);
    return {
      short,
      long,
      ratio: Number((long.peakMb / short.peakMb).toFixed(3)),
      retainedRatio: Number((long.retainedMb / short.retainedMb).toFixed(3)),
      lengthRatio: Math.round(long.audioSeconds / short.audioSeconds),
    };
  } finally {
    await endpoint.close();
  }
}
