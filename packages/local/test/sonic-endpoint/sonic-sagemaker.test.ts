import {
  type AudioFormat,
  SynthesisFailed,
  SynthesisRejected,
  type SynthesisRequest,
  type Timing,
} from "@voxtrail/core";
import { SonicSageMakerSynthesizer, type SonicSynthesisStream } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectSynthesisTimings } from "../../../../test/support/synthesis-timings";
import { FliteEngine } from "../../src/flite/flite-engine";
import { type SonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";
import { fliteSentences, localClient, TEST_PROCESSOR } from "./helpers";

// The synthesizer against the local endpoint, through the real SageMaker Runtime client.

const engine = new FliteEngine();
const TEXT = "Thanks for calling about your order. We will ring you back tomorrow morning, café closed.";
let endpoint: SonicEndpoint;
let client: ReturnType<typeof localClient>;
/** Duration of flite's own rendering of TEXT, one sentence at a time, in milliseconds. */
let fliteMs: number;

beforeAll(async () => {
  endpoint = await startSonicEndpoint({ engine });
  client = localClient(endpoint.url);
  const sentences = await fliteSentences(engine, TEXT, "slt");
  fliteMs = (sentences.reduce((sum, samples) => sum + samples.length, 0) / 16000) * 1000;
});

afterAll(async () => {
  client.destroy();
  await endpoint.close();
});

function synthesizer(sdk = client, addTimestamps = false): SonicSageMakerSynthesizer {
  return new SonicSageMakerSynthesizer({
    client: sdk,
    endpointName: "sonic-local",
    voiceId: "bf0a246a-8642-498a-9950-80c35e9276b5",
    processor: TEST_PROCESSOR,
    addTimestamps,
  });
}

function request(format: Partial<AudioFormat> = {}): SynthesisRequest {
  return {
    text: TEXT,
    language: "en",
    format: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1, ...format },
  };
}

async function collect(stream: SonicSynthesisStream): Promise<{ audio: Buffer; chunks: number }> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { audio: Buffer.concat(chunks), chunks: chunks.length };
}

function byName(timings: Timing[]): Record<string, Timing> {
  return Object.fromEntries(timings.map((timing) => [timing.name, timing]));
}

describe("SonicSageMakerSynthesizer against the local Sonic endpoint", () => {
  test("streams a sentence as 16-bit PCM of plausible length", async () => {
    const stream = synthesizer().synthesize(request({ sampleRate: 24000 }));
    const { audio, chunks } = await collect(stream);
    expect(chunks).toBeGreaterThan(10);
    expect(stream.audioMs()).toBeGreaterThan(1000);
    expect(stream.audioMs()).toBeCloseTo((audio.byteLength / 2 / 24000) * 1000, 3);
    expect(Math.abs(stream.audioMs() - fliteMs)).toBeLessThan(1);
  });

  test("mu-law at 8 kHz has one byte per sample", async () => {
    const stream = synthesizer().synthesize(request({ encoding: "pcm_mulaw", sampleRate: 8000 }));
    const { audio } = await collect(stream);
    expect(Math.abs(audio.byteLength - fliteMs * 8)).toBeLessThanOrEqual(1);
    expect(stream.audioMs()).toBeCloseTo(audio.byteLength / 8, 3);
  });

  test("events split across 7-byte parts reassemble to the same audio and words", async () => {
    const whole = synthesizer(client, true).synthesize(request());
    const wholeAudio = (await collect(whole)).audio;
    const split = await (async () => {
      const small = await startSonicEndpoint({ engine, maxPartBytes: 7 });
      const sdk = localClient(small.url);
      try {
        const stream = synthesizer(sdk, true).synthesize(request());
        return { audio: (await collect(stream)).audio, words: stream.words() };
      } finally {
        sdk.destroy();
        await small.close();
      }
    })();
    expect(wholeAudio.byteLength).toBeGreaterThan(0);
    expect(split.audio.equals(wholeAudio)).toBe(true);
    // 7-byte parts may cut the two-byte "é" of "café" (where depends on the step_time digits before
    // it); the decoder's unit tests cover that cut deterministically.
    expect(split.words).toEqual(whole.words());
    expect(split.words.map((word) => word.word)).toEqual(TEXT.split(" "));
    expect(split.words.at(-1)?.endMs).toBeCloseTo(fliteMs, 0);
  });

  test("words() is empty unless timestamps were asked for", async () => {
    const stream = synthesizer().synthesize(request());
    await collect(stream);
    expect(stream.words()).toEqual([]);
  });

  test("timings name their events: ttfb <= total, and a max gap between chunks", async () => {
    const stream = synthesizer().synthesize(request());
    expect(stream.timings()).toEqual([]);
    await collect(stream);
    const timings = expectSynthesisTimings(stream.timings());
    const [ttfb, total, maxGap] = ["ttfb", "total", "maxGap"].map(
      (name) => timings[`synthesize.${name}`]?.ms ?? -1,
    );
    expect(ttfb).toBeGreaterThan(0);
    expect(ttfb).toBeLessThanOrEqual(total as number);
    expect(maxGap).toBeGreaterThanOrEqual(0);
    expect(maxGap).toBeLessThanOrEqual(total as number);
  });

  test("an output format Sonic does not offer is SynthesisRejected, without the text in the message", async () => {
    const stream = synthesizer().synthesize(request({ sampleRate: 11025 }));
    const error = await collect(stream).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SynthesisRejected);
    expect((error as Error).name).toBe("SynthesisRejected");
    expect((error as Error).message).toContain("422");
    expect((error as Error).message).not.toContain("Thanks");
  });

  test("a Sonic error event is SynthesisFailed, without the text in the message", async () => {
    class BrokenEngine extends FliteEngine {
      override synthesizeWav(): Promise<Uint8Array> {
        return Promise.reject(new Error(`flite choked on: ${TEXT}`));
      }
    }
    const broken = await startSonicEndpoint({ engine: new BrokenEngine() });
    const sdk = localClient(broken.url);
    try {
      const error = await collect(synthesizer(sdk).synthesize(request())).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SynthesisFailed);
      expect((error as Error).message).toBe("Sonic reported an error event (status 500)");
    } finally {
      sdk.destroy();
      await broken.close();
    }
  });

  test("a consumer that stops early releases the stream; the endpoint keeps serving", async () => {
    const first = synthesizer().synthesize(request());
    for await (const _ of first) break;
    expect(first.audioMs()).toBe(20);
    expect(byName(first.timings())["synthesize.total"]).toBeUndefined();

    const { audio } = await collect(synthesizer().synthesize(request()));
    expect(audio.byteLength).toBeGreaterThan(0);
  });

  test("a stream can be iterated only once", async () => {
    const stream = synthesizer().synthesize(request());
    await collect(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow("only once");
  });
});
