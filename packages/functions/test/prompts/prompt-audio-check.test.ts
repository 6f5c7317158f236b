import { createHash } from "node:crypto";
import { encodeSamples } from "@voxtrail/audio";
import {
  type ArtifactRef,
  type AudioEncoding,
  type AudioFormat,
  LOCAL_BOUNDARY,
  type PromptRow,
  type SynthesisStream,
  type Synthesizer,
} from "@voxtrail/core";
import { promptKeys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { synthesizePromptStage } from "../../src/handlers/synthesize-prompt";
import {
  AudioLevel,
  checkedPromptAudio,
  implausibleAudio,
  MIN_PROMPT_LEVEL_DBFS,
  wordCount,
} from "../../src/prompts/prompt-audio-check";
import { invoke, testDependencies } from "../stage-dependencies";

const SECRET = "Secret words of the prompt";

/** `ms` of a 440 Hz sine at `amplitude` (of full scale), as 16-bit samples at `rate`. */
function tone(ms: number, rate: number, amplitude: number): Int16Array {
  return Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) =>
    Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 440 * i) / rate)),
  );
}

/** `bytes` cut into chunks of `size` bytes (samples split across chunks where `size` is odd). */
function* chunks(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

function measured(samples: Int16Array, format: AudioFormat, chunkBytes = 333): AudioLevel {
  const level = new AudioLevel(format);
  for (const chunk of chunks(encodeSamples(samples, format.encoding), chunkBytes)) level.add(chunk);
  return level;
}

describe("AudioLevel", () => {
  const encodings: AudioEncoding[] = ["pcm_s16le", "pcm_mulaw", "pcm_alaw", "pcm_f32le"];

  it.each(encodings)("measures a half-scale sine at about -9 dBFS in %s, chunked mid-sample", (encoding) => {
    const level = measured(tone(1000, 8000, 0.5), { encoding, sampleRate: 8000, channels: 1 });

    // A sine's RMS is its amplitude / sqrt(2): 0.5 -> -9.03 dBFS (G.711 quantizes a little).
    expect(level.dbfs).toBeCloseTo(-9.03, 0);
    expect(level.durationMs).toBe(1000);
  });

  it("measures digital silence as -Infinity and no audio as -Infinity lasting 0 ms", () => {
    const format: AudioFormat = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 };
    expect(measured(new Int16Array(16000), format).dbfs).toBe(Number.NEGATIVE_INFINITY);
    const empty = new AudioLevel(format);
    expect(empty.dbfs).toBe(Number.NEGATIVE_INFINITY);
    expect(empty.durationMs).toBe(0);
  });

  it("counts a trailing half sample only once it is whole", () => {
    const level = new AudioLevel({ encoding: "pcm_s16le", sampleRate: 1000, channels: 1 });
    level.add(new Uint8Array([0x00, 0x40, 0x00]));
    expect(level.durationMs).toBe(1);
    level.add(new Uint8Array([0x40]));
    expect(level.durationMs).toBe(2);
    expect(level.dbfs).toBeCloseTo(20 * Math.log10(0.5), 6);
  });
});

describe("implausibleAudio", () => {
  it("passes a normal tone long enough for its words", () => {
    const level = measured(tone(600, 8000, 0.3), { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 });
    expect(implausibleAudio(level, wordCount("Press one for sales."))).toBeUndefined();
  });

  it("fails near silence, giving the level and the threshold", () => {
    // 0.001 of full scale is -63 dBFS: what flite makes of a text it cannot read.
    const level = measured(tone(1000, 8000, 0.001 * Math.SQRT2), {
      encoding: "pcm_s16le",
      sampleRate: 8000,
      channels: 1,
    });
    const error = implausibleAudio(level, 3);

    expect(error).toMatchObject({ name: "PromptAudioImplausible", retryable: false });
    expect(error?.message).toMatch(/RMS level is -6\d\.\d dBFS, below the -50 dBFS threshold/);
    expect(MIN_PROMPT_LEVEL_DBFS).toBe(-50);
  });

  it("fails digital silence", () => {
    const error = implausibleAudio({ dbfs: Number.NEGATIVE_INFINITY, durationMs: 2000 }, 2);
    expect(error?.message).toMatch(/RMS level is silence, below the -50 dBFS threshold/);
  });

  it("fails audio shorter than 50 ms per word, giving the duration and the threshold", () => {
    const level = measured(tone(120, 8000, 0.5), { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 });
    const error = implausibleAudio(level, 4);

    expect(error?.name).toBe("PromptAudioImplausible");
    expect(error?.message).toMatch(/lasts 120 ms, shorter than the 200 ms its 4 word\(s\) need/);
    expect(implausibleAudio(level, 2)).toBeUndefined();
  });

  it("counts words between white space", () => {
    expect(wordCount("  Press\t1 for\nsales. ")).toBe(4);
    expect(wordCount("こんにちは、お電話ありがとうございます。")).toBe(1);
  });
});

describe("checkedPromptAudio", () => {
  const format: AudioFormat = { encoding: "pcm_s16le", sampleRate: 8000, channels: 1 };

  function streamOf(bytes: Uint8Array): SynthesisStream {
    return {
      async *[Symbol.asyncIterator]() {
        yield* chunks(bytes, 101);
      },
      timings: () => [{ name: "synthesize.ttfb", startEvent: "a", endEvent: "b", ms: 1 }],
      delivery: () => ({
        chunks: 1,
        gapsMs: [],
        stallThresholdMs: 250,
        stalls: [],
        totalMs: 50,
        audioMs: 500,
        rtf: 0.1,
      }),
    };
  }

  it("passes every chunk through, then ends for plausible audio", async () => {
    const bytes = encodeSamples(tone(500, 8000, 0.3), "pcm_s16le");
    const checked = checkedPromptAudio(streamOf(bytes), format, "Press one.");
    let total = 0;
    for await (const chunk of checked) total += chunk.byteLength;

    expect(total).toBe(bytes.byteLength);
    expect(checked.timings()).toHaveLength(1);
    expect(checked.delivery?.()).toMatchObject({ rtf: 0.1 });
  });

  it("throws PromptAudioImplausible at the end of silence, never with the text", async () => {
    const checked = checkedPromptAudio(streamOf(new Uint8Array(8000)), format, SECRET);
    const read = async () => {
      for await (const _ of checked) {
        // drain
      }
    };

    const error = await read().catch((caught: Error) => caught);
    expect(error).toMatchObject({ name: "PromptAudioImplausible" });
    expect((error as Error).message).not.toContain(SECRET);
  });
});

describe("SynthesizePrompt on implausible audio", () => {
  function row(text: string): PromptRow {
    return {
      line: 2,
      id: "p2",
      text,
      format: "telephony",
      rowHash: createHash("sha256").update(text).digest("hex"),
    };
  }

  function synthesizerOf(bytes: Uint8Array): Synthesizer {
    return {
      processor: { provider: "stub", model: "stub", version: "1", boundary: LOCAL_BOUNDARY },
      synthesize: () => ({
        async *[Symbol.asyncIterator]() {
          yield bytes;
        },
        timings: () => [],
      }),
    };
  }

  async function synthesize(bytes: Uint8Array, text: string) {
    const { deps } = await testDependencies({ synthesizer: synthesizerOf(bytes) });
    const rows: ArtifactRef = {
      kind: "prompt-manifest",
      uri: deps.store.uri("prompts/pr-check/rows.jsonl"),
      key: "prompts/pr-check/rows.jsonl",
      sha256: "0".repeat(64),
      bytes: 0,
      contentType: "application/x-ndjson",
    };
    const outcome = invoke(synthesizePromptStage, deps, { jobId: "pr-check", rows, row: row(text) });
    return { deps, outcome };
  }

  it("fails the prompt on 185 ms of near silence and writes no WAV and no result", async () => {
    // What flite made of a Japanese row: 185 ms, 8 kHz mu-law, barely above zero.
    const { deps, outcome } = await synthesize(new Uint8Array(1480).fill(0xfe), SECRET);

    const error = await outcome.catch((caught: Error) => caught);
    expect(error).toMatchObject({ name: "PromptAudioImplausible" });
    expect((error as Error).message).not.toContain(SECRET);
    expect(await deps.store.head(promptKeys.audio("pr-check", "p2"))).toBeUndefined();
    expect(await deps.store.head(promptKeys.result("pr-check", "p2"))).toBeUndefined();
  });

  it("succeeds on a tone long enough for the text", async () => {
    const { deps, outcome } = await synthesize(
      encodeSamples(tone(800, 8000, 0.3), "pcm_mulaw"),
      "Press one.",
    );

    await expect(outcome).resolves.toEqual({ id: "p2", status: "succeeded" });
    expect(await deps.store.head(promptKeys.audio("pr-check", "p2"))).toBeDefined();
  });
});
