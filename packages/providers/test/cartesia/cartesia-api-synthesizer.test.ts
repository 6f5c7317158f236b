import {
  type AudioFormat,
  StreamDelivery,
  SynthesisFailed,
  SynthesisRejected,
  type SynthesisRequest,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
} from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import {
  cartesiaApiServerForFile,
  chunkEvent,
  DONE_EVENT,
  errorEvent,
  openSse,
  type Responder,
  sendJson,
  sleep,
  writeSse,
} from "../../../../test/support/cartesia-api-server";
import { expectSynthesisTimings } from "../../../../test/support/synthesis-timings";
import { CartesiaApiSynthesizer, type CartesiaSynthesisStream } from "../../src/synthesis/cartesia-api";

// CartesiaApiSynthesizer through the real @cartesia/cartesia-js client (tts.generateSSE), against
// a local server that speaks Cartesia's SSE wire format.

const API_KEY = "sk_car_test-key-8d02aa31";
const VOICE = "bf0a246a-8642-498a-9950-80c35e9276b5";
const TEXT = "Thanks for calling about order 4271.";
/** Three chunks of distinct bytes. */
const CHUNKS = [0, 1, 2].map((n) => new Uint8Array(160).fill(n + 1));

const server = cartesiaApiServerForFile(() => streamChunks());

/** Answers with the chunks, `gapMs` apart, then whatever `ending` writes (by default, `done`). */
function streamChunks(
  gapMs = 0,
  ending: Responder = (_request, response) => {
    writeSse(response, DONE_EVENT);
    response.end();
  },
): Responder {
  return async (request, response) => {
    openSse(response);
    for (const [index, chunk] of CHUNKS.entries()) {
      if (index > 0 && gapMs > 0) await sleep(gapMs);
      writeSse(response, chunkEvent(chunk));
    }
    await ending(request, response);
  };
}

function synthesizer(): CartesiaApiSynthesizer {
  return new CartesiaApiSynthesizer({
    apiKey: async () => API_KEY,
    baseURL: server().url,
    maxRetries: 0,
    model: "sonic-3",
    voiceId: VOICE,
  });
}

function request(format: Partial<AudioFormat> = {}): SynthesisRequest {
  return {
    text: TEXT,
    language: "en",
    format: { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1, ...format },
  };
}

/** Iterates a stream; returns the chunks received before it ended, and what it threw. */
async function drain(stream: CartesiaSynthesisStream): Promise<{ chunks: Uint8Array[]; error: unknown }> {
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

describe("CartesiaApiSynthesizer", () => {
  test("sends POST /tts/sse with the model, voice, language and raw output format", async () => {
    await drain(synthesizer().synthesize(request()));
    const [received] = server().requests;
    expect(received?.path).toBe("/tts/sse");
    expect(received?.headers.accept).toBe("text/event-stream");
    expect(received?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received?.json).toEqual({
      model_id: "sonic-3",
      transcript: TEXT,
      language: "en",
      voice: { mode: "id", id: VOICE },
      output_format: { container: "raw", encoding: "pcm_mulaw", sample_rate: 8000 },
    });
  });

  test("yields each chunk's base64 audio as raw bytes, and a request's voice replaces the default", async () => {
    const { chunks, error } = await drain(synthesizer().synthesize({ ...request(), voiceId: "voice-2" }));
    expect(error).toBeUndefined();
    expect(chunks.map((chunk) => Buffer.from(chunk))).toEqual(CHUNKS.map((chunk) => Buffer.from(chunk)));
    expect(server().requests[0]?.json).toMatchObject({ voice: { mode: "id", id: "voice-2" } });
  });

  test("times ttfb at the first audio chunk, total at done, and the largest gap between chunks", async () => {
    server().respondWith(streamChunks(40));
    const stream = synthesizer().synthesize(request());
    await drain(stream);
    const timings = expectSynthesisTimings(stream.timings());
    expect(timings["synthesize.ttfb"]!.ms).toBeLessThanOrEqual(timings["synthesize.total"]!.ms);
    // The server waits 40 ms between chunks: the measured gaps cannot be shorter.
    expect(timings["synthesize.maxGap"]!.ms).toBeGreaterThanOrEqual(35);
    const delivery = StreamDelivery.parse(stream.delivery());
    expect(delivery.chunks).toBe(3);
    expect(delivery.gapsMs).toHaveLength(2);
    expect(delivery.audioMs).toBe(60); // 480 mu-law bytes at 8 kHz
    expect(stream.audioMs()).toBe(60);
  });

  test("declares a third-party boundary at the API's host and the model it asks for", () => {
    expect(synthesizer().processor).toEqual({
      provider: "cartesia-api",
      model: "sonic-3",
      version: expect.stringMatching(/^cartesia-js \d+\.\d+\.\d+/),
      endpoint: `${server().url}/tts/sse`,
      boundary: { kind: "third-party", host: new URL(server().url).host },
    });
  });

  describe("failures are named", () => {
    test.each([
      [429, SynthesisThrottled],
      [422, SynthesisRejected],
      [400, SynthesisRejected],
      [500, SynthesisFailed],
    ])("status %i before the stream: %o", async (status, named) => {
      server().respondWith((_request, response) => sendJson(response, status, { message: `echo: ${TEXT}` }));
      const { error } = await drain(synthesizer().synthesize(request()));
      expect(error).toBeInstanceOf(named);
      expect((error as Error).message).toBe(`Cartesia TTS failed: status ${status}`);
    });

    test.each([
      [429, SynthesisThrottled],
      [400, SynthesisRejected],
      [500, SynthesisFailed],
    ])("an SSE error event with status %i after audio began: %o", async (status, named) => {
      server().respondWith(
        streamChunks(0, (_request, response) => {
          writeSse(response, errorEvent(status));
          response.end();
        }),
      );
      const { chunks, error } = await drain(synthesizer().synthesize(request()));
      expect(chunks).toHaveLength(3);
      expect(error).toBeInstanceOf(named);
      expect((error as Error).message).toBe(`Cartesia TTS failed: error event, status ${status}`);
      expect((error as Error).message).not.toContain("Thanks");
    });

    test("a connection reset mid-stream is SynthesisStreamInterrupted", async () => {
      server().respondWith(
        streamChunks(0, async (_request, response) => {
          await sleep(20);
          response.socket?.resetAndDestroy();
        }),
      );
      const { chunks, error } = await drain(synthesizer().synthesize(request()));
      expect(chunks).toHaveLength(3);
      expect(error).toBeInstanceOf(SynthesisStreamInterrupted);
      expect((error as Error).name).toBe("SynthesisStreamInterrupted");
    });

    test("a stream that ends without done is SynthesisStreamInterrupted", async () => {
      server().respondWith(
        streamChunks(0, (_request, response) => {
          response.end();
        }),
      );
      const { error } = await drain(synthesizer().synthesize(request()));
      expect(error).toBeInstanceOf(SynthesisStreamInterrupted);
    });

    test("an event that is not JSON is SynthesisFailed", async () => {
      server().respondWith((_request, response) => {
        openSse(response);
        response.end("event: chunk\ndata: {not json\n\n");
      });
      const { error } = await drain(synthesizer().synthesize(request()));
      expect(error).toBeInstanceOf(SynthesisFailed);
      expect((error as Error).message).toBe("Cartesia TTS failed: malformed response");
    });

    test("a sample rate the API does not offer is SynthesisRejected, and nothing is sent", async () => {
      const { error } = await drain(synthesizer().synthesize(request({ sampleRate: 11025 })));
      expect(error).toBeInstanceOf(SynthesisRejected);
      expect(server().requests).toHaveLength(0);
    });
  });

  test("the API key appears in no error and no processor field", async () => {
    const responders: Responder[] = [
      (_request, response) => sendJson(response, 401, { message: `invalid key ${API_KEY}` }),
      (_request, response) => sendJson(response, 429, { message: `key ${API_KEY}` }),
      streamChunks(0, (_request, response) => {
        writeSse(response, { ...errorEvent(500), message: `key ${API_KEY}` });
        response.end();
      }),
      streamChunks(0, (_request, response) => {
        response.socket?.resetAndDestroy();
      }),
    ];
    const provider = synthesizer();
    for (const responder of responders) {
      server().respondWith(responder);
      const { error } = await drain(provider.synthesize(request()));
      expect(error).toBeInstanceOf(Error);
      const shown = `${(error as Error).message} ${(error as Error).stack} ${JSON.stringify(error)}`;
      expect(shown).not.toContain(API_KEY);
      expect((error as Error).cause).toBeUndefined();
    }
    expect(JSON.stringify(provider.processor)).not.toContain(API_KEY);
  });
});
