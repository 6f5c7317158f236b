/**
 * The child of `wire-ttfb.test.ts`: a fresh process whose first SageMaker Runtime call is the one
 * measured. `node --import tsx wire-ttfb-child.ts URL CALLS` synthesizes one sentence CALLS times
 * through a SageMaker Runtime client built here (so the first call pays the client's first-call
 * set-up, as the first voicemail of a fresh `voxtrail run` or a cold Lambda does) and prints, as one
 * JSON array, each call's timings, `firstChunkAtMs`: when its first audio chunk reached the loop below, on
 * the system's monotonic clock (`process.hrtime`, the same in every process on the machine), and
 * `loopDelayMs`: the most this process's event loop was held up from the request's start on the
 * wire to that chunk (a loaded machine's scheduling, a garbage collection, the first call's own
 * work on the response). Only times are printed, no text.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import { SonicSageMakerSynthesizer } from "@voxtrail/providers";

const [url, calls = "1"] = process.argv.slice(2);
if (url === undefined) throw new Error("usage: wire-ttfb-child.ts URL [CALLS]");

const client = new SageMakerRuntimeClient({
  endpoint: url,
  region: "eu-west-1",
  credentials: { accessKeyId: "x", secretAccessKey: "x" },
  maxAttempts: 1,
});
const synthesizer = new SonicSageMakerSynthesizer({
  client,
  endpointName: "sonic-under-test",
  voiceId: "slt",
  processor: {
    provider: "sonic-sagemaker",
    model: "silence-behind-sonic",
    version: "test",
    endpoint: "sonic-under-test",
    boundary: { kind: "local" },
  },
});

const measured: Array<{ firstChunkAtMs: number; loopDelayMs: number; timings: unknown[] }> = [];
for (let call = 0; call < Number(calls); call++) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // Only the wire's part counts: from the request handed to its socket (set-up before it is not).
  const onWire = () => loop.reset();
  subscribe("http.client.request.start", onWire);
  let firstChunkAtMs = Number.NaN;
  const stream = synthesizer.synthesize({
    text: "Thanks for calling back.",
    language: "en",
    format: { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
  });
  for await (const _ of stream) {
    // The timings are complete once the stream is drained.
    if (Number.isNaN(firstChunkAtMs)) {
      firstChunkAtMs = Number(process.hrtime.bigint()) / 1e6;
      loop.disable();
    }
  }
  unsubscribe("http.client.request.start", onWire);
  // The histogram's figures are nanoseconds, and count its own 1 ms resolution in.
  measured.push({
    firstChunkAtMs,
    loopDelayMs: Math.max(0, loop.max / 1e6 - 1),
    timings: stream.timings(),
  });
}
client.destroy();
process.stdout.write(`${JSON.stringify(measured)}\n`);
