import { ServerResponse } from "node:http";
import { ModelError, ValidationError } from "@aws-sdk/client-sagemaker-runtime";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { FliteEngine, type FliteVoice } from "../../src/flite/flite-engine";
import { type SonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";
import {
  audioOf,
  eventsOf,
  fliteSentences,
  invoke,
  localClient,
  payloadParts,
  sentencesAudio,
  sonicBody,
} from "./helpers";

const engine = new FliteEngine();
const TRANSCRIPT = String(sonicBody().transcript);
let endpoint: SonicEndpoint;
let client: ReturnType<typeof localClient>;
/** Flite's own 16 kHz samples for each of TRANSCRIPT's two sentences, as the endpoint should pass them on. */
let sentences: Int16Array[];
/** How many samples they hold. */
let fliteSamples: number;

beforeAll(async () => {
  endpoint = await startSonicEndpoint({ engine });
  client = localClient(endpoint.url);
  sentences = await fliteSentences(engine, TRANSCRIPT, "slt");
  fliteSamples = sentences.reduce((sum, samples) => sum + samples.length, 0);
});

afterAll(async () => {
  client.destroy();
  await endpoint.close();
});

/** Starts an endpoint with `options`, runs `body` against it, then closes it. */
async function withEndpoint<T>(
  options: Parameters<typeof startSonicEndpoint>[0],
  body: (client: ReturnType<typeof localClient>, url: string) => Promise<T>,
): Promise<T> {
  const other = await startSonicEndpoint({ engine, ...options });
  const otherClient = localClient(other.url);
  try {
    return await body(otherClient, other.url);
  } finally {
    otherClient.destroy();
    await other.close();
  }
}

async function eventsFor(body: unknown, sdk = client): Promise<Record<string, unknown>[]> {
  return eventsOf(await payloadParts(await invoke(sdk, body)));
}

describe("local Sonic endpoint, through the real SageMaker Runtime client", () => {
  test("streams chunk events then done, and the SDK decodes its frames as PayloadParts", async () => {
    const response = await invoke(client, sonicBody());
    expect(response.$metadata.httpStatusCode).toBe(200);
    expect(response.InvokedProductionVariant).toBe("AllTraffic");

    const events = eventsOf(await payloadParts(response));
    const chunks = events.slice(0, -1);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ type: "chunk", done: false, status_code: 200, context_id: "ctx-1" });
      expect(chunk.step_time).toBeTypeOf("number");
    }
    expect(events.at(-1)).toEqual({ type: "done", done: true, status_code: 200, context_id: "ctx-1" });

    // 16-bit at 16 kHz is flite's own format: each sentence's audio passes through unchanged, and
    // the stream is cut into 20 ms chunks across the sentences' ends.
    expect(sentences).toHaveLength(2);
    const audio = audioOf(events);
    expect(audio.equals(sentencesAudio(sentences, "pcm_s16le", 16000))).toBe(true);
    const sizes = chunks.map((chunk) => Buffer.from(String(chunk.data), "base64").byteLength);
    expect(new Set(sizes.slice(0, -1))).toEqual(new Set([640]));
    expect(sizes.at(-1)).toBeLessThanOrEqual(640);
  });

  test("chunkMs sets the audio carried by each chunk event", async () => {
    const events = await withEndpoint({ chunkMs: 40 }, (sdk) => eventsFor(sonicBody(), sdk));
    expect(Buffer.from(String(events[0]?.data), "base64").byteLength).toBe(1280);
  });

  test.each([
    { encoding: "pcm_mulaw", sample_rate: 8000, bytesPerSample: 1 },
    { encoding: "pcm_alaw", sample_rate: 8000, bytesPerSample: 1 },
    { encoding: "pcm_s16le", sample_rate: 24000, bytesPerSample: 2 },
    { encoding: "pcm_f32le", sample_rate: 48000, bytesPerSample: 4 },
  ] as const)("converts to $encoding at $sample_rate Hz", async (format) => {
    const body = sonicBody({
      output_format: { container: "raw", encoding: format.encoding, sample_rate: format.sample_rate },
    });
    const audio = audioOf(await eventsFor(body));
    // Each sentence is resampled on its own.
    const samples = sentences.reduce(
      (sum, sentence) => sum + Math.round((sentence.length * format.sample_rate) / 16000),
      0,
    );
    expect(audio.byteLength).toBe(samples * format.bytesPerSample);
    expect(audio.equals(sentencesAudio(sentences, format.encoding, format.sample_rate))).toBe(true);
  });

  test("a voice id naming a flite voice selects it; any other id speaks with slt", async () => {
    const audioFor = async (id: string) => audioOf(await eventsFor(sonicBody({ voice: { mode: "id", id } })));
    const [uuid, slt, rms] = await Promise.all(
      ["0b1c-uuid", "slt", "rms" satisfies FliteVoice].map(audioFor),
    );
    expect(uuid?.equals(slt as Buffer)).toBe(true);
    expect(uuid?.equals(rms as Buffer)).toBe(false);
  });

  test("add_timestamps packs estimated word timestamps and done into the last part", async () => {
    const parts = await payloadParts(await invoke(client, sonicBody({ add_timestamps: true })));
    const last = eventsOf([parts.at(-1) as Uint8Array]);
    expect(last.map((event) => event.type)).toEqual(["timestamps", "done"]);

    type WordTimestamps = { words: string[]; start: number[]; end: number[] };
    const { words, start, end } = (last[0] as { word_timestamps: WordTimestamps }).word_timestamps;
    expect(words).toEqual(TRANSCRIPT.split(" "));
    expect(start[0]).toBe(0);
    for (let i = 1; i < words.length; i++) {
      expect(start[i]).toBeCloseTo(end[i - 1] as number, 6);
      expect(end[i] as number).toBeGreaterThan(start[i] as number);
    }
    expect(end.at(-1)).toBeCloseTo(fliteSamples / 16000, 3);
  });

  test("maxPartBytes splits the byte stream, cutting events anywhere, without changing them", async () => {
    const whole = await payloadParts(await invoke(client, sonicBody({ add_timestamps: true })));
    const split = await withEndpoint({ maxPartBytes: 7 }, async (sdk) =>
      payloadParts(await invoke(sdk, sonicBody({ add_timestamps: true }))),
    );
    expect(Math.max(...split.map((part) => part.byteLength))).toBe(7);
    expect(split.length).toBeGreaterThan(Buffer.concat(whole).byteLength / 7 - 1);
    // Several parts end inside an event: the split is in the byte stream, not between events.
    expect(split.filter((part) => part.at(-1) !== 0x0a).length).toBeGreaterThan(whole.length);

    const [a, b] = [eventsOf(whole), eventsOf(split)];
    expect(audioOf(b).equals(audioOf(a))).toBe(true);
    expect(b.at(-2)).toEqual(a.at(-2));
  });

  test.each([
    ["sample_rate 1234", { output_format: { container: "raw", encoding: "pcm_s16le", sample_rate: 1234 } }],
    ["encoding mp3", { output_format: { container: "raw", encoding: "mp3", sample_rate: 16000 } }],
    ["container wav", { output_format: { container: "wav", encoding: "pcm_s16le", sample_rate: 16000 } }],
    ["no output_format", { output_format: undefined }],
    ["no context_id", { context_id: undefined }],
    ["an empty transcript", { transcript: " " }],
    ["an empty language", { language: "" }],
    ["voice mode embedding", { voice: { mode: "embedding", id: "x" } }],
    ["add_timestamps a string", { add_timestamps: "yes" }],
  ])("rejects a body with %s as ModelError 424, OriginalStatusCode 422", async (_, overrides) => {
    const error = await invoke(client, sonicBody(overrides)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    const modelError = error as ModelError;
    expect(modelError.$metadata.httpStatusCode).toBe(424);
    expect(modelError.OriginalStatusCode).toBe(422);
    const field = Object.keys(overrides)[0] as string;
    expect(modelError.OriginalMessage).toContain(field);
    expect(modelError.message).not.toContain("Thanks for calling");
  });

  test("accepts a body without the optional language", async () => {
    const events = await eventsFor(sonicBody({ language: undefined }));
    expect(events.at(-1)?.type).toBe("done");
  });

  test("rejects a body that is not JSON as ModelError 422", async () => {
    const error = await invoke(client, new TextEncoder().encode("not json")).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).OriginalStatusCode).toBe(422);
  });

  test("refuses a body over SageMaker's 6 MB limit as ValidationError", async () => {
    const body = sonicBody({ transcript: "a ".repeat(3 * 1024 * 1024 + 1) });
    await expect(invoke(client, body)).rejects.toBeInstanceOf(ValidationError);
  });

  test("refuses options it cannot honour", async () => {
    await expect(startSonicEndpoint({ engine, chunkMs: 0 })).rejects.toThrow(RangeError);
    await expect(startSonicEndpoint({ engine, maxPartBytes: 7.5 })).rejects.toThrow(RangeError);
  });

  test("answers 404 for other paths and methods", async () => {
    const statuses = await Promise.all([
      fetch(`${endpoint.url}/ping`).then((response) => response.status),
      fetch(`${endpoint.url}/endpoints/sonic/invocations`, { method: "POST", body: "{}" }).then(
        (r) => r.status,
      ),
      fetch(`${endpoint.url}/endpoints/sonic/invocations-response-stream`).then(
        (response) => response.status,
      ),
    ]);
    expect(statuses).toEqual([404, 404, 404]);
  });

  test("a synthesis failure after the stream began is sent as a Sonic error event", async () => {
    class BrokenEngine extends FliteEngine {
      override synthesizeWav(): Promise<Uint8Array> {
        return Promise.reject(new Error("flite crashed"));
      }
    }
    const events = await withEndpoint({ engine: new BrokenEngine() }, (sdk) => eventsFor(sonicBody(), sdk));
    expect(events).toEqual([
      { type: "error", status_code: 500, done: true, data: "synthesis failed", context_id: "ctx-1" },
    ]);
  });

  test("stops sending when the client disconnects, and keeps serving", async () => {
    // 48 kHz float audio cut into 7-byte parts: over 100,000 frames, more than socket buffers hold.
    const big = sonicBody({ output_format: { container: "raw", encoding: "pcm_f32le", sample_rate: 48000 } });
    const streamBytes = Buffer.concat(await payloadParts(await invoke(client, big))).byteLength;
    const writes = vi.spyOn(ServerResponse.prototype, "write");
    try {
      await withEndpoint({ maxPartBytes: 7 }, async (sdk, url) => {
        const abort = new AbortController();
        const response = await fetch(`${url}/endpoints/sonic/invocations-response-stream`, {
          method: "POST",
          body: JSON.stringify(big),
          signal: abort.signal,
        });
        expect(response.status).toBe(200);
        await response.body?.getReader().read();
        abort.abort();
        await new Promise((resolve) => setTimeout(resolve, 300));
        const afterAbort = writes.mock.calls.length;
        expect(afterAbort).toBeLessThan(streamBytes / 7 / 2);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(writes.mock.calls.length).toBe(afterAbort);

        const events = await eventsFor(sonicBody(), sdk);
        expect(events.at(-1)?.type).toBe("done");
      });
    } finally {
      writes.mockRestore();
    }
  });
});
