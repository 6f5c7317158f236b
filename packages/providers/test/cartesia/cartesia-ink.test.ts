import { writeWav } from "@voxtrail/audio";
import { InvalidAudio, Transcript, TranscriptionFailed } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { cartesiaApiServerForFile, sendJson } from "../../../../test/support/cartesia-api-server";
import { CartesiaInkTranscriber } from "../../src/transcription/cartesia-ink";
import { failure } from "../rejection";

// CartesiaInkTranscriber through the real @cartesia/cartesia-js client, against a local server
// that speaks Cartesia's multipart STT API.

const API_KEY = "sk_car_test-key-4f1e9b77";
/** Half a second of 16 kHz mono 16-bit silence, as a WAV file. */
const WAV = writeWav({ encoding: "pcm_s16le", sampleRate: 16000, channels: 1 }, new Uint8Array(16000));
const INK_RESPONSE = {
  type: "transcript",
  request_id: "req-1",
  text: " Hi, it's about order 4271. ",
  language: "en",
  duration: 0.5,
  words: [
    { word: " Hi,", start: 0.0, end: 0.12 },
    { word: " order", start: 0.2, end: 0.31 },
    { word: " 4271.", start: 0.32, end: 0.48 },
  ],
};

const server = cartesiaApiServerForFile(() => (_request, response) => sendJson(response, 200, INK_RESPONSE));

function transcriber(apiKey: string | (() => Promise<string>) = API_KEY): CartesiaInkTranscriber {
  return new CartesiaInkTranscriber({ apiKey, baseURL: server().url, maxRetries: 0 });
}

describe("CartesiaInkTranscriber", () => {
  test("uploads the WAV as multipart to POST /stt with ink-whisper, the language and word timestamps", async () => {
    await transcriber().transcribe(WAV, { language: "en" });
    expect(server().requests).toHaveLength(1);
    const [request] = server().requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/stt");
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers["cartesia-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request?.fields).toEqual({
      model: ["ink-whisper"],
      language: ["en"],
      "timestamp_granularities[]": ["word"],
    });
    expect(request?.file?.name).toBe("voicemail.wav");
    expect(request?.file?.type).toBe("audio/wav");
    expect(Buffer.from(request?.file?.bytes ?? []).equals(Buffer.from(WAV))).toBe(true);
  });

  test("returns the words with their times in milliseconds, and the WAV's duration", async () => {
    const provider = transcriber();
    const transcript = await provider.transcribe(WAV, { language: "en" });
    expect(Transcript.parse(transcript)).toEqual({
      text: "Hi, it's about order 4271.",
      words: [
        { word: "Hi,", startMs: 0, endMs: 120 },
        { word: "order", startMs: 200, endMs: 310 },
        { word: "4271.", startMs: 320, endMs: 480 },
      ],
      language: "en",
      audioMs: 500,
      processor: provider.processor,
    });
  });

  test("declares a third-party boundary at the API's host, and the model it asks for", () => {
    const provider = new CartesiaInkTranscriber({ apiKey: API_KEY, model: "ink-whisper-2025-06-04" });
    expect(provider.processor).toMatchObject({
      provider: "cartesia-ink",
      model: "ink-whisper-2025-06-04",
      endpoint: "https://api.cartesia.ai/stt",
      boundary: { kind: "third-party", host: "api.cartesia.ai" },
    });
    expect(transcriber().processor.boundary).toEqual({
      kind: "third-party",
      host: new URL(server().url).host,
    });
  });

  test("reads the API key from its source once, when first needed", async () => {
    let reads = 0;
    const provider = transcriber(async () => {
      reads += 1;
      return API_KEY;
    });
    expect(reads).toBe(0);
    await provider.transcribe(WAV, { language: "en" });
    await provider.transcribe(WAV, { language: "en" });
    expect(reads).toBe(1);
    expect(server().requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${API_KEY}`,
      `Bearer ${API_KEY}`,
    ]);
  });

  test.each([401, 422, 429, 500])(
    "status %i is TranscriptionFailed naming the status only",
    async (status) => {
      server().respondWith((_request, response) =>
        sendJson(response, status, { message: `bad request for key ${API_KEY}: it's about order 4271` }),
      );
      const error = await failure(transcriber().transcribe(WAV, { language: "en" }));
      expect(error).toBeInstanceOf(TranscriptionFailed);
      expect(error.name).toBe("TranscriptionFailed");
      expect(error.message).toBe(`Cartesia STT failed: status ${status}`);
    },
  );

  test("a response that is not a transcript is TranscriptionFailed", async () => {
    server().respondWith((_request, response) => sendJson(response, 200, { words: "no" }));
    const error = await failure(transcriber().transcribe(WAV, { language: "en" }));
    expect(error).toBeInstanceOf(TranscriptionFailed);
    expect(error.message).toBe("Cartesia STT response is malformed");
  });

  test("an API key that cannot be read is TranscriptionFailed, and nothing is sent", async () => {
    const error = await failure(
      transcriber(() => Promise.reject(new Error("secret arn:aws:secretsmanager:x is gone"))).transcribe(
        WAV,
        {
          language: "en",
        },
      ),
    );
    expect(error).toBeInstanceOf(TranscriptionFailed);
    expect(error.message).toBe("Cartesia STT failed: the API key could not be read");
    expect(server().requests).toHaveLength(0);
  });

  test("audio that is not WAV is InvalidAudio, and nothing is sent", async () => {
    const error = await failure(transcriber().transcribe(new Uint8Array(64), { language: "en" }));
    expect(error).toBeInstanceOf(InvalidAudio);
    expect(server().requests).toHaveLength(0);
  });

  test("the API key appears in no error and no processor field", async () => {
    const errors: Error[] = [];
    for (const status of [400, 401, 403, 429, 500]) {
      server().respondWith((_request, response) => sendJson(response, status, { message: `key ${API_KEY}` }));
      errors.push(await failure(transcriber().transcribe(WAV, { language: "en" })));
    }
    const provider = transcriber();
    for (const error of errors) {
      expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(API_KEY);
      expect(error.cause).toBeUndefined();
    }
    expect(JSON.stringify(provider.processor)).not.toContain(API_KEY);
    expect(JSON.stringify(provider)).not.toContain(API_KEY);
  });
});
