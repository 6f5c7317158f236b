import { InvalidAudio, SynthesisThrottled } from "@voxtrail/core";
import type { StageHandler } from "@voxtrail/functions";
import { buildVoicemailDefinition, STAGE_FUNCTIONS } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { SUCCEEDED_VOICEMAIL_STATES } from "../../../test/support/voicemail-state-path";
import { LOCAL_FUNCTION_ARNS } from "../src/local-functions";
import { LocalStateMachine, type StateTransition } from "../src/state-machine/local-state-machine";
import { TaskTokens } from "../src/state-machine/task-tokens";

/** Handlers that record what they were given; each stage's behaviour can be replaced. */
function handlers(overrides: Partial<Record<string, StageHandler<unknown>>> = {}) {
  const calls: Array<{ fn: string; input: unknown; functionName: string }> = [];
  const byArn: Record<string, StageHandler<unknown>> = {};
  for (const fn of STAGE_FUNCTIONS) {
    byArn[LOCAL_FUNCTION_ARNS[fn]] = async (input, context) => {
      calls.push({ fn, input, functionName: context.functionName });
      const override = overrides[fn];
      if (override) return override(input, context);
      if (fn === "ingest") return { jobId: "job-1" };
      if (fn === "recordFailure") return { cause: "recorded" };
      return { from: fn };
    };
  }
  return { byArn, calls };
}

const definition = buildVoicemailDefinition({ functionArns: LOCAL_FUNCTION_ARNS });
const event = { source: "aws.s3", "detail-type": "Object Created", detail: {} };

describe("LocalStateMachine running the voicemail definition", () => {
  it("calls each stage's handler in order with the state built by the definition's paths", async () => {
    const { byArn, calls } = handlers();
    const transitions: StateTransition[] = [];
    const machine = new LocalStateMachine("test", definition, byArn);
    const result = await machine.start(event, { onTransition: (t) => transitions.push(t) });
    expect(result).toMatchObject({ status: "SUCCEEDED", output: { from: "finalize" } });
    expect(calls.map((c) => c.fn)).toEqual(["ingest", "transcribe", "reason", "synthesize", "finalize"]);
    expect(calls[0]?.input).toMatchObject({ event, execution: { id: result.executionArn } });
    expect(calls[3]?.input).toEqual({
      jobId: "job-1",
      transcribe: { from: "transcribe" },
      reason: { from: "reason" },
    });
    expect(calls[1]?.functionName).toBe("voxtrail-local-transcribe");
    expect(transitions.filter((t) => t.type === "entered").map((t) => t.state)).toEqual([
      ...SUCCEEDED_VOICEMAIL_STATES,
    ]);
  });

  it("stops when its signal aborts, as StopExecution does: ABORTED, no later stage called", async () => {
    const stop = new AbortController();
    const { byArn, calls } = handlers({
      transcribe: async () => {
        stop.abort();
        throw new Error("stopped while transcribing");
      },
    });
    const machine = new LocalStateMachine("test", definition, byArn);
    const result = await machine.start(event, { signal: stop.signal });
    expect(result).toMatchObject({ status: "ABORTED" });
    expect(calls.map((c) => c.fn)).toEqual(["ingest", "transcribe"]);
  });

  it("ends a duplicate delivery after Ingest, calling no other stage", async () => {
    const duplicate = { jobId: "job-1", duplicate: { reason: "completed", executionId: "e-0", run: 1 } };
    const { byArn, calls } = handlers({ ingest: async () => duplicate });
    const result = await new LocalStateMachine("test", definition, byArn).start(event);
    expect(result).toMatchObject({ status: "SUCCEEDED", output: duplicate });
    expect(calls.map((c) => c.fn)).toEqual(["ingest"]);
  });

  it("retries a transient named error and then succeeds", async () => {
    let attempts = 0;
    const { byArn } = handlers({
      synthesize: async () => {
        attempts += 1;
        if (attempts < 3) throw new SynthesisThrottled("endpoint answered 429");
        return { ok: true };
      },
    });
    const machine = new LocalStateMachine("test", definition, byArn);
    const result = await machine.start(event, { retryIntervalMs: 1 });
    expect(result.status).toBe("SUCCEEDED");
    expect(attempts).toBe(3);
  });

  it("does not retry bad input: records the failure and fails naming the stage", async () => {
    let attempts = 0;
    const { byArn, calls } = handlers({
      ingest: async () => {
        attempts += 1;
        throw new InvalidAudio("not a WAV file: expected a RIFF/WAVE header");
      },
    });
    const machine = new LocalStateMachine("test", definition, byArn);
    const result = await machine.start(event, { retryIntervalMs: 1 });
    expect(attempts).toBe(1);
    expect(result).toMatchObject({ status: "FAILED", error: "IngestFailed", cause: "recorded" });
    const recorder = calls.find((c) => c.fn === "recordFailure");
    expect(recorder?.input).toMatchObject({
      stage: "Ingest",
      state: { failure: { Error: "InvalidAudio" } },
    });
    const cause = JSON.parse(
      (recorder!.input as { state: { failure: { Cause: string } } }).state.failure.Cause,
    );
    expect(cause).toEqual({
      errorType: "InvalidAudio",
      errorMessage: "not a WAV file: expected a RIFF/WAVE header",
    });
  });

  it("refuses a definition with a Task whose function has no handler", () => {
    const { byArn } = handlers();
    delete byArn[LOCAL_FUNCTION_ARNS.reason];
    expect(() => new LocalStateMachine("test", definition, byArn)).toThrow(/no local handler/);
  });

  it("refuses an invalid definition each time it is given, not only the first (valid ones are validated once)", () => {
    const { byArn } = handlers();
    const invalid = { ...definition, StartAt: "NoSuchState" };
    for (const attempt of [1, 2]) {
      expect(() => new LocalStateMachine("test", invalid, byArn), `attempt ${attempt}`).toThrow(
        /NoSuchState|StartAt/,
      );
    }
  });
});

describe("LocalStateMachine running the voicemail definition with Transcribe as a service job", () => {
  const serviceJob = buildVoicemailDefinition({
    functionArns: LOCAL_FUNCTION_ARNS,
    transcription: "service-job",
  });

  /** The Transcribe function's steps: start answers a job, await resumes as `onAwait` says, read a transcript. */
  function transcribeSteps(onAwait: (taskToken: string, tokens: TaskTokens) => void, tokens: TaskTokens) {
    const steps: string[] = [];
    const transcribe: StageHandler<unknown> = async (input) => {
      const { step, taskToken } = input as { step: string; taskToken?: string };
      steps.push(step);
      if (step === "start") return { jobName: "job", waits: { count: 0 } };
      if (step === "await") onAwait(taskToken as string, tokens);
      return step === "read"
        ? { from: "read" }
        : { ignored: "a callback Task's function result is not its output" };
    };
    return { steps, transcribe };
  }

  it("waits on a fresh token per wait until it is resumed, and goes on with what resumed it", async () => {
    const tokens = new TaskTokens();
    const seen: string[] = [];
    const { steps, transcribe } = transcribeSteps((token) => {
      seen.push(token);
      setTimeout(() => void tokens.resume(token, { status: "COMPLETED" }), 20);
    }, tokens);
    const { byArn, calls } = handlers({ transcribe });
    const machine = new LocalStateMachine("test", serviceJob, byArn, undefined, tokens);
    const result = await machine.start(event, { callbackWaitMs: 5_000 });
    expect(result.status).toBe("SUCCEEDED");
    expect(steps).toEqual(["start", "await", "read"]);
    expect(seen[0]).toMatch(/^local-task-token-/);
    const read = calls.find((call) => (call.input as { step?: string }).step === "read");
    expect(read?.input).toMatchObject({ job: { transcription: { ended: { status: "COMPLETED" } } } });
    expect(await tokens.resume(seen[0] as string, { status: "COMPLETED" })).toBe("gone");
  });

  it("counts each wait that times out, waits again on a new token, and stops waiting after the limit", async () => {
    const tokens = new TaskTokens();
    const seen = new Set<string>();
    const { steps, transcribe } = transcribeSteps((token) => seen.add(token), tokens);
    const { byArn } = handlers({ transcribe });
    const machine = new LocalStateMachine("test", serviceJob, byArn, undefined, tokens);
    const result = await machine.start(event, { callbackWaitMs: 5 });
    expect(result.status).toBe("SUCCEEDED");
    expect(steps.filter((step) => step === "await")).toHaveLength(10);
    expect(seen.size).toBe(10);
    expect(steps.at(-1)).toBe("read");
  });
});
