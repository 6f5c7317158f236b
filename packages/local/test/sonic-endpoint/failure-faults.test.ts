import { SonicSageMakerSynthesizer } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FliteEngine } from "../../src/flite/flite-engine";
import { startSonicEndpoint } from "../../src/sonic-endpoint/server";
import { invoke, localClient, payloadParts, sonicBody, TEST_PROCESSOR } from "./helpers";

// The endpoint's failure faults, read through the real SageMaker Runtime client: each hits only the
// first N invocations, so the next one succeeds.

const TEXT = "Thanks for calling back.";
const FORMAT = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 } as const;
const engine = new FliteEngine();

beforeAll(async () => {
  await engine.synthesizeWav(TEXT, "slt");
});

async function speak(url: string): Promise<{ audio: Buffer; error?: { name: string } }> {
  const stream = new SonicSageMakerSynthesizer({
    client: localClient(url),
    endpointName: "sonic-local",
    voiceId: "slt",
    processor: TEST_PROCESSOR,
  }).synthesize({ text: TEXT, language: "en", format: FORMAT });
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
    return { audio: Buffer.concat(chunks) };
  } catch (error) {
    return { audio: Buffer.concat(chunks), error: error as { name: string } };
  }
}

describe("failure faults", () => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  test("streamError: a ModelStreamError after chunk K on the first N requests, then whole audio", async () => {
    const endpoint = await startSonicEndpoint({
      engine,
      maxPartBytes: 50,
      faults: { streamError: { afterChunk: 3, requests: 2 } },
    });
    closers.push(endpoint.close);
    const first = await speak(endpoint.url);
    const second = await speak(endpoint.url);
    const third = await speak(endpoint.url);
    for (const failed of [first, second]) {
      expect(failed.error?.name).toBe("SynthesisStreamInterrupted");
      expect(failed.audio.byteLength).toBe(3 * 320 * 2); // three 20 ms chunks of 16 kHz 16-bit audio
    }
    expect(third.error).toBeUndefined();
    expect(third.audio.byteLength).toBeGreaterThan(first.audio.byteLength);
  });

  test("the ModelStreamError arrives as SageMaker's exception message, after the audio parts", async () => {
    const endpoint = await startSonicEndpoint({ engine, faults: { streamError: { afterChunk: 1 } } });
    closers.push(endpoint.close);
    const response = await invoke(localClient(endpoint.url), sonicBody({ transcript: TEXT }));
    await expect(payloadParts(response)).rejects.toMatchObject({
      name: "ModelStreamError",
      ErrorCode: "ModelStreamError",
    });
  });

  test.each([
    [429, "SynthesisThrottled"],
    [422, "SynthesisRejected"],
  ] as const)(
    "modelError %i: 424 ModelError before the stream, as %s, on the first request only",
    async (status, name) => {
      const endpoint = await startSonicEndpoint({
        engine,
        faults: { modelError: { originalStatus: status } },
      });
      closers.push(endpoint.close);
      await expect(invoke(localClient(endpoint.url), sonicBody({ transcript: TEXT }))).rejects.toMatchObject({
        name: "ModelError",
        OriginalStatusCode: status,
        $metadata: { httpStatusCode: 424 },
      });
      const again = await speak(endpoint.url);
      expect(again.error).toBeUndefined();
      expect(again.audio.byteLength).toBeGreaterThan(0);
      const fresh = await startSonicEndpoint({ engine, faults: { modelError: { originalStatus: status } } });
      closers.push(fresh.close);
      expect((await speak(fresh.url)).error?.name).toBe(name);
    },
  );

  test("invalid failure settings are refused", async () => {
    await expect(startSonicEndpoint({ engine, faults: { streamError: { afterChunk: 0 } } })).rejects.toThrow(
      "faults.streamError.afterChunk must be a positive integer",
    );
    await expect(
      startSonicEndpoint({ engine, faults: { modelError: { originalStatus: 500 as 429, requests: 1 } } }),
    ).rejects.toThrow("faults.modelError.originalStatus must be 422 or 429");
  });
});
