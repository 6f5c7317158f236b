import { request as httpRequest } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { SonicSageMakerSynthesizer } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FliteEngine } from "../../src/flite/flite-engine";
import { type SonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";
import { invoke, localClient, sonicBody, TEST_PROCESSOR } from "./helpers";

// Inject a known first-audio delay and a known stall into the local Sonic endpoint, and check that
// what the synthesizer records (through the real SageMaker Runtime client) matches them.
//
// Why this tells "first audio" from "response headers": the endpoint sends its headers at once, and
// at once a first PayloadPart holding only the opening bytes of the first chunk event
// (`{"type":"chunk","data":"`); the audio of that event follows FIRST_AUDIO_MS after the request
// arrived. The SDK's send() resolves at the first event-stream message, so "headers" as a
// client of the SDK can see them (send() resolving) and as HTTP sees them (the `response` event)
// both come well before FIRST_AUDIO_MS. A ttfb taken at either would be far below the injected
// delay and fail the first assertion; the last test shows that gap directly.

const FIRST_AUDIO_MS = 800;
const STALL_MS = 300;
const STALL_AFTER_CHUNK = 5;
/**
 * Allowed excess: request signing, a local connection, event decoding. On top of it the test allows
 * whatever this process's event loop was held up while it ran (measured, not guessed): the
 * endpoint's timers and the client's reads share that loop, and a loaded CI machine delays both.
 */
const TOLERANCE_MS = 25;

const TEXT = "Thanks for calling back.";

/**
 * flite's speech for TEXT, rendered once before anything is timed: a synthesis runs in a child
 * process whose start-up on a loaded machine can outlast the injected delay, and the endpoint sends
 * first audio only when both the delay and the synthesis are over. The delays under test are the
 * endpoint's, not flite's.
 */
class PrerenderedFlite extends FliteEngine {
  #wav: Uint8Array | undefined;
  async prerender(): Promise<void> {
    this.#wav = await super.synthesizeWav(TEXT, "slt");
  }
  override async synthesizeWav(text: string): Promise<Uint8Array> {
    if (text !== TEXT || !this.#wav) throw new Error("only the prerendered text is available");
    return this.#wav;
  }
}

const engine = new PrerenderedFlite();
let endpoint: SonicEndpoint;
let client: ReturnType<typeof localClient>;

beforeAll(async () => {
  await engine.prerender();
  endpoint = await startSonicEndpoint({
    engine,
    faults: { firstByteDelayMs: FIRST_AUDIO_MS, stall: { afterChunk: STALL_AFTER_CHUNK, ms: STALL_MS } },
  });
  client = localClient(endpoint.url);
  // One request first: the SDK's first send() loads and builds what later ones reuse (tens of ms).
  for await (const _ of (await invoke(client, sonicBody({ transcript: TEXT }))).Body ?? []) {
    // drain
  }
});

afterAll(async () => {
  client.destroy();
  await endpoint.close();
});

describe("latency injected into the local Sonic endpoint", () => {
  test("the recorded ttfb and largest gap match the injected first-audio delay and stall", async () => {
    const synthesizer = new SonicSageMakerSynthesizer({
      client,
      endpointName: "sonic-local",
      voiceId: "slt",
      processor: TEST_PROCESSOR,
    });
    const stream = synthesizer.synthesize({
      text: TEXT,
      language: "en",
      format: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
    });
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    for await (const _ of stream) {
      // drain
    }
    loopDelay.disable();
    // Timers in this process fired up to this much late while the synthesis ran (ns -> ms).
    const lateMs = loopDelay.max / 1e6;
    const timings = Object.fromEntries(stream.timings().map((timing) => [timing.name, timing.ms]));
    expect(timings["synthesize.ttfb"]).toBeGreaterThanOrEqual(FIRST_AUDIO_MS);
    expect(timings["synthesize.ttfb"]).toBeLessThan(FIRST_AUDIO_MS + TOLERANCE_MS + lateMs);
    expect(timings["synthesize.maxGap"]).toBeGreaterThanOrEqual(STALL_MS - 1);
    expect(timings["synthesize.maxGap"]).toBeLessThan(STALL_MS + TOLERANCE_MS + lateMs);

    const delivery = stream.delivery();
    expect(delivery.chunks).toBeGreaterThan(STALL_AFTER_CHUNK + 1);
    expect(delivery.gapsMs).toHaveLength(delivery.chunks - 1);
    expect(delivery.stalls).toHaveLength(1);
    expect(delivery.stalls[0]?.afterChunk).toBe(STALL_AFTER_CHUNK);
    expect(delivery.stalls[0]?.ms).toBe(timings["synthesize.maxGap"]);
    console.info(
      `injected first audio ${FIRST_AUDIO_MS} ms, stall ${STALL_MS} ms; recorded ttfb ${timings["synthesize.ttfb"]} ms, largest gap ${timings["synthesize.maxGap"]} ms; event loop late by up to ${lateMs.toFixed(1)} ms`,
    );
  });

  test("headers, and the SDK's send(), come long before the first audio", async () => {
    // HTTP headers, seen by a plain HTTP client.
    const headersMs = await new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest(`${endpoint.url}/endpoints/sonic-local/invocations-response-stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
      });
      req.on("response", (res) => {
        const ms = performance.now() - started;
        // Let this response finish, so its synthesis does not hold up the next request.
        res.resume().on("end", () => resolve(ms));
      });
      req.on("error", reject);
      req.end(JSON.stringify(sonicBody({ transcript: TEXT })));
    });
    // send() resolving, then the first audio, through the SDK.
    const started = performance.now();
    const response = await invoke(client, sonicBody({ transcript: TEXT }));
    const sendMs = performance.now() - started;
    let firstAudioMs: number | undefined;
    let text = "";
    for await (const part of response.Body ?? []) {
      text += new TextDecoder().decode(part.PayloadPart?.Bytes ?? new Uint8Array());
      if (firstAudioMs === undefined && /"type":"chunk","data":"[^"]+"/.test(text)) {
        firstAudioMs = performance.now() - started;
      }
    }
    console.info(
      `headers after ${headersMs.toFixed(1)} ms, send() resolved after ${sendMs.toFixed(1)} ms, first audio after ${firstAudioMs?.toFixed(1)} ms`,
    );
    expect(headersMs).toBeLessThan(FIRST_AUDIO_MS / 2);
    expect(sendMs).toBeLessThan(FIRST_AUDIO_MS / 2);
    expect(firstAudioMs).toBeGreaterThanOrEqual(FIRST_AUDIO_MS);
  });
});
