import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import type { TranscriptionJobStatus, WorkflowCallback } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { transcriptionJobHandler } from "../src/handlers/transcription-job";
import type { JobState } from "../src/state";
import { createStageHandlers } from "../src/workflow-handlers";
import { context, testDependencies } from "./stage-dependencies";

/** A transcription service whose job stands at `status`; it starts every job it is asked to. */
function serviceAt(status: TranscriptionJobStatus["status"]) {
  return {
    processor: {
      provider: "amazon-transcribe",
      model: "transcribe-batch",
      version: "2017-10-26",
      boundary: { kind: "aws-account" as const, service: "transcribe", region: "eu-west-1" },
    },
    jobName: (jobId: string, run: number) => `voxtrail-test-${jobId}-run-${run}`,
    start: async () => "started" as const,
    describe: async () => ({ status }),
    transcriptOf: () => {
      throw new Error("not expected");
    },
  };
}

/** A callback that records what it was asked to resume, and answers `answer`. */
function recordingCallback(answer: "resumed" | "gone" = "resumed") {
  const resumed: Array<{ taskToken: string; output: Record<string, unknown> }> = [];
  const callback: WorkflowCallback = {
    resume: async (taskToken, output) => {
      resumed.push({ taskToken, output });
      return answer;
    },
  };
  return { callback, resumed };
}

/** A job the Transcribe function's start step has begun: Ingest over a one-second tone, then start. */
async function startedJob(status: TranscriptionJobStatus["status"], answer?: "resumed" | "gone") {
  const { callback, resumed } = recordingCallback(answer);
  const { deps } = await testDependencies({
    transcriptionService: serviceAt(status),
    workflowCallback: callback,
  });
  const tone = new Int16Array(8000).map((_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
  );
  const audio = writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(tone));
  const stored = await deps.store.put("incoming/voicemail/a.wav", audio, { contentType: "audio/wav" });
  const handlers = createStageHandlers(deps);
  const event = {
    source: "aws.s3",
    "detail-type": "Object Created",
    time: "2026-01-01T00:00:01.000Z",
    detail: {
      bucket: { name: deps.store.bucket },
      object: { key: "incoming/voicemail/a.wav", etag: (stored.etag ?? "").replaceAll('"', "") },
    },
  };
  const execution = { id: "arn:aws:states:us-east-1:000000000000:execution:vm:1", startTime: event.time };
  const job = (await handlers.ingest({ event, execution }, context)) as JobState;
  const transcription = await handlers.transcribe({ step: "start", job }, context);
  return {
    deps,
    handler: handlers.transcribe,
    job: { ...job, transcription: transcription as { jobName: string } },
    resumed,
  };
}

describe("the Transcribe function with a transcription service", () => {
  it("refuses an input that names no step, before touching the service", async () => {
    const { deps } = await testDependencies();
    const { callback } = recordingCallback();
    const handler = transcriptionJobHandler({
      ...deps,
      transcriptionService: serviceAt("COMPLETED"),
      workflowCallback: callback,
    });
    for (const input of [{ jobId: "vm-1" }, { step: "wait", job: {} }, { step: "constructor" }, null]) {
      await expect(handler(input, context)).rejects.toMatchObject({
        name: "InvalidInput",
        message: expect.stringContaining('"start", "await", "read" or "resume"'),
      });
    }
  });

  it("is what createStageHandlers gives the transcribe function when the service is configured", async () => {
    const { callback } = recordingCallback();
    const { deps } = await testDependencies();
    const plain = createStageHandlers(deps);
    const withService = createStageHandlers({
      ...deps,
      transcriptionService: serviceAt("COMPLETED"),
      workflowCallback: callback,
    });
    await expect(withService.transcribe({ jobId: "vm-1" }, context)).rejects.toMatchObject({
      name: "InvalidInput",
    });
    // Without the service, the same input is the in-function stage's to refuse, by its schema.
    await expect(plain.transcribe({ jobId: "vm-1" }, context)).rejects.toMatchObject({
      message: expect.not.stringContaining('"start", "await"'),
    });
    expect(() => createStageHandlers({ ...deps, transcriptionService: serviceAt("COMPLETED") })).toThrow(
      /needs a workflow callback/,
    );
  });
});

describe("waiting for a transcription job", () => {
  it("stores the task token under the job's name and leaves a running job's workflow waiting", async () => {
    const { deps, handler, job, resumed } = await startedJob("QUEUED");
    expect(await handler({ step: "await", job, taskToken: "token-1" }, context)).toEqual({
      status: "QUEUED",
    });
    const stored = JSON.parse(
      (await deps.store.getBytes(keys.transcriptionWait(job.transcription.jobName))).toString(),
    );
    expect(stored).toEqual({ taskToken: "token-1" });
    expect(resumed).toEqual([]);
  });

  it("resumes the workflow itself when the job ended before the wait began (its event came first)", async () => {
    const { handler, job, resumed } = await startedJob("COMPLETED");
    await handler({ step: "await", job, taskToken: "token-2" }, context);
    expect(resumed).toEqual([{ taskToken: "token-2", output: { status: "COMPLETED" } }]);
  });

  it("resumes the waiting workflow with the status the job's event reports", async () => {
    const { handler, job, resumed } = await startedJob("IN_PROGRESS");
    await handler({ step: "await", job, taskToken: "token-3" }, context);
    const input = { step: "resume", jobName: job.transcription.jobName, status: "FAILED" };
    expect(await handler(input, context)).toEqual({ outcome: "resumed" });
    expect(resumed).toEqual([{ taskToken: "token-3", output: { status: "FAILED" } }]);
  });

  it("takes an event no workflow waits for, or one whose workflow moved on, without failing", async () => {
    const { handler, job } = await startedJob("IN_PROGRESS", "gone");
    const input = { step: "resume", jobName: job.transcription.jobName, status: "COMPLETED" };
    expect(await handler(input, context)).toEqual({ outcome: "not-waiting" });
    await handler({ step: "await", job, taskToken: "token-4" }, context);
    expect(await handler(input, context)).toEqual({ outcome: "gone" });
    await expect(handler({ step: "resume", jobName: "x" }, context)).rejects.toMatchObject({
      name: "InvalidInput",
    });
  });
});
