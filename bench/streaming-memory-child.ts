/**
 * One synthesis in a fresh process, so its peak RSS is its own: the Synthesize stage's Lambda
 * handler (as the local runtime runs it) speaks a reply text through the Sonic client against the
 * endpoint at argv[2] and writes reply.wav into a directory store; then prints one JSON line with
 * the process's peak RSS before and after. The reply text is argv[3]'s sentence repeated argv[4]
 * times. Run with `--expose-gc`, it also collects garbage every 250 ms and reports the most memory
 * still reachable after a collection (heap in use plus array buffers): what the synthesis retains,
 * apart from the garbage V8 lets pile up between collections. Run by streaming-memory.ts, not by hand.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArtifactKind, ArtifactRef } from "@voxtrail/core";
import { createStageHandlers, type SynthesizeInput } from "@voxtrail/functions";
import { BUNDLED_RECORDS_FILE, localDependencies } from "@voxtrail/local";
import { ARTIFACT_FILES, keys } from "@voxtrail/workflow";

/** What Lambda would pass as the handler's context. */
const LAMBDA_CONTEXT = {
  functionName: "voxtrail-bench-synthesize",
  awsRequestId: "bench",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:voxtrail-bench-synthesize",
  memoryLimitInMB: "1024",
  functionVersion: "$LATEST",
  getRemainingTimeInMillis: () => 300_000,
} as never;

const [endpointUrl, sentence, repeatsArg] = process.argv.slice(2);
if (!endpointUrl || !sentence || !repeatsArg)
  throw new Error("usage: streaming-memory-child URL SENTENCE REPEATS");

const storeDir = await mkdtemp(join(tmpdir(), "voxtrail-bench-memory-"));
try {
  const deps = await localDependencies({
    storeDir,
    recordsFile: BUNDLED_RECORDS_FILE,
    endpoint: { url: endpointUrl, close: async () => {} },
    executions: { isRunning: async () => false },
  });
  const jobId = "vm-bench-streaming-memory";
  const put = async <K extends ArtifactKind>(kind: K, key: string, body: string) => {
    const stored = await deps.store.put(key, body, { contentType: "text/plain" });
    const ref = { uri: stored.uri, key: stored.key, sha256: stored.sha256 ?? "", bytes: stored.bytes };
    return { ...ref, kind, contentType: stored.contentType };
  };
  // The earlier stages' artifacts, as pointers: Synthesize reads only the reply text.
  const source = {
    ...(await put("source-audio", keys.incomingVoicemail("bench.wav"), "source")),
    bucket: deps.store.bucket,
  };
  const input: SynthesizeInput = {
    jobId,
    run: 1,
    source,
    audioMs: 1000,
    eventTime: new Date().toISOString(),
    execution: { id: "bench", startTime: new Date().toISOString() },
    normalizedAudio: await put(
      "normalized-audio",
      keys.artifact(jobId, ARTIFACT_FILES.normalizedAudio),
      "normalized",
    ),
    timings: [],
    transcribe: {
      transcript: await put("transcript", keys.artifact(jobId, ARTIFACT_FILES.transcript), "{}"),
      timings: [],
    },
    reason: {
      record: await put("record", keys.artifact(jobId, ARTIFACT_FILES.record), "{}"),
      replyText: await put(
        "reply-text",
        keys.artifact(jobId, ARTIFACT_FILES.replyText),
        `${sentence.repeat(Number(repeatsArg)).trim()}\n`,
      ),
      timings: [],
    },
  };
  const collect = (globalThis as { gc?: () => void }).gc;
  let retainedPeak = 0;
  const sampleRetained = () => {
    collect?.();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    retainedPeak = Math.max(retainedPeak, heapUsed + arrayBuffers);
  };
  const sampler = collect ? setInterval(sampleRetained, 250) : undefined;
  const before = process.resourceUsage().maxRSS;
  const started = performance.now();
  const handlers = createStageHandlers(deps);
  const result = (await handlers.synthesize(input, LAMBDA_CONTEXT)) as {
    audioMs: number;
    replyAudio: ArtifactRef;
  };
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (collect) sampleRetained();
  process.stdout.write(
    `${JSON.stringify({
      maxRssKbBefore: before,
      maxRssKb: process.resourceUsage().maxRSS,
      ...(collect ? { retainedPeakBytes: retainedPeak } : {}),
      audioMs: result.audioMs,
      replyBytes: result.replyAudio.bytes,
      ms: Math.round(ms),
    })}\n`,
  );
} finally {
  await rm(storeDir, { recursive: true, force: true });
}
