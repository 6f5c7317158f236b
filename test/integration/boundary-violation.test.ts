import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import {
  ActivityRecord,
  type ArtifactKind,
  type ArtifactRef,
  type Boundary,
  type ObjectStore,
} from "@voxtrail/core";
import { createStageHandlers, type JobState, loadBoundaryPolicy } from "@voxtrail/functions";
import { startSonicEndpoint } from "@voxtrail/local";
import { SonicSageMakerSynthesizer } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";

let endpoint: Awaited<ReturnType<typeof startSonicEndpoint>>;
const requests: string[] = [];

beforeAll(async () => {
  endpoint = await startSonicEndpoint({
    onRequest: ({ method, path }) => requests.push(`${method} ${path}`),
  });
});

afterAll(async () => {
  await endpoint.close();
});

/** A synthesizer through the real SageMaker Runtime client to the local endpoint, declaring `boundary`. */
function synthesizer(boundary: Boundary) {
  return new SonicSageMakerSynthesizer({
    client: new SageMakerRuntimeClient({
      endpoint: endpoint.url,
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    }),
    endpointName: "voxtrail-local-sonic",
    voiceId: "slt",
    processor: { provider: "sonic-test", model: "flite", version: "1", endpoint: endpoint.url, boundary },
  });
}

async function put(store: ObjectStore, kind: ArtifactKind, key: string, body: string): Promise<ArtifactRef> {
  const stored = await store.put(key, body, { contentType: "text/plain" });
  return {
    kind,
    key,
    uri: stored.uri,
    sha256: stored.sha256 ?? "",
    bytes: stored.bytes,
    contentType: stored.contentType,
  };
}

/** Ingests a real voicemail, then lays down the transcript and reply Synthesize reads. */
async function synthesizeInput(store: ObjectStore, handlers: ReturnType<typeof createStageHandlers>) {
  const samples = new Int16Array(8000).map((_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
  );
  await store.put(
    "incoming/voicemail/a.wav",
    writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples)),
    {
      contentType: "audio/wav",
    },
  );
  const event = {
    source: "aws.s3",
    "detail-type": "Object Created",
    time: "2026-01-01T00:00:01.000Z",
    detail: { bucket: { name: store.bucket }, object: { key: "incoming/voicemail/a.wav" } },
  };
  const execution = { id: "exec-1", startTime: "2026-01-01T00:00:01.500Z" };
  const job = (await handlers.ingest({ event, execution }, context)) as JobState;
  const base = `artifacts/${job.jobId}/`;
  return {
    ...job,
    transcribe: { transcript: await put(store, "transcript", `${base}transcript.json`, "{}"), timings: [] },
    reason: {
      record: await put(store, "record", `${base}record.json`, "{}"),
      replyText: await put(store, "reply-text", `${base}reply.txt`, "Your refund was sent today.\n"),
      timings: [],
    },
  };
}

describe("a BoundaryViolation sends nothing", () => {
  it("refuses a third-party synthesizer the production policy does not allow: no request reaches the endpoint", async () => {
    const { deps } = await testDependencies({
      synthesizer: synthesizer({ kind: "third-party", host: "tts.example.net" }),
      boundaryPolicy: await loadBoundaryPolicy("production"),
    });
    const handlers = createStageHandlers(deps);
    const input = await synthesizeInput(deps.store, handlers);
    requests.length = 0;

    await expect(handlers.synthesize(input, context)).rejects.toMatchObject({
      name: "BoundaryViolation",
      message:
        'boundary policy "production" forbids reply-text into third-party:tts.example.net (provider sonic-test); reply-audio into third-party:tts.example.net (provider sonic-test)',
    });
    expect(requests).toEqual([]);

    const key = `lineage/${input.jobId}/synthesize-01.json`;
    const record = ActivityRecord.parse(JSON.parse((await deps.store.getBytes(key)).toString()));
    expect(record).toMatchObject({
      outcome: "failed",
      error: { name: "BoundaryViolation" },
      outputs: [],
      processors: [],
      policy: { environment: "production", outcome: "refused" },
      sideChannels: { logs: "pointers-only", statePayloads: "pointers-only", events: "pointers-only" },
    });
    expect(record.policy?.flows.filter((flow) => !flow.allowed).map((flow) => flow.kind)).toEqual([
      "reply-text",
      "reply-audio",
    ]);
    expect(JSON.stringify(record)).not.toContain("refund");
    expect(await deps.store.head(`artifacts/${input.jobId}/reply.wav`)).toBeUndefined();
  });

  it("lets the same synthesizer through when the policy allows its host, and the endpoint sees the request", async () => {
    const { deps } = await testDependencies({
      synthesizer: synthesizer({ kind: "third-party", host: "api.cartesia.ai" }),
      boundaryPolicy: await loadBoundaryPolicy("production"),
    });
    const handlers = createStageHandlers(deps);
    const input = await synthesizeInput(deps.store, handlers);
    requests.length = 0;

    await handlers.synthesize(input, context);
    expect(requests).toEqual(["POST /endpoints/voxtrail-local-sonic/invocations-response-stream"]);
    const record = ActivityRecord.parse(
      JSON.parse((await deps.store.getBytes(`lineage/${input.jobId}/synthesize-01.json`)).toString()),
    );
    expect(record).toMatchObject({ outcome: "succeeded", policy: { outcome: "allowed" } });
  });
});
