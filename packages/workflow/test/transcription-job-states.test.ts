import { describe, expect, it } from "vitest";
import {
  buildVoicemailDefinition,
  executionTimeoutSeconds,
  MAX_TRANSCRIPTION_WAITS,
  RETRY_CLASSES,
  retryHorizonSeconds,
  STAGE_FUNCTIONS,
  TRANSCRIPTION_JOB_STATES,
  TRANSCRIPTION_WAIT_SECONDS,
  transcriptionModeOf,
  WAIT_FOR_TASK_TOKEN_LAMBDA,
} from "../src";
import { recorderState } from "../src/voicemail-definition";
import { expectValidAsl } from "./expect-valid-asl";
import { testFunctionArns } from "./test-function-arns";

const functionArns = testFunctionArns(STAGE_FUNCTIONS);

describe("the voicemail definition with Transcribe as a service job", () => {
  const definition = buildVoicemailDefinition({ functionArns, transcription: "service-job" });
  const { States: states } = definition;

  it("is valid Amazon States Language", () => expectValidAsl(definition));

  it("starts the job, waits for its event on a task token, then reads it and goes on to Reason", () => {
    expect(states.Transcribe).toMatchObject({
      Resource: functionArns.transcribe,
      Parameters: { step: "start", "job.$": "$" },
      ResultPath: "$.transcription",
      Next: TRANSCRIPTION_JOB_STATES.await,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.await]).toMatchObject({
      Resource: WAIT_FOR_TASK_TOKEN_LAMBDA,
      Parameters: {
        FunctionName: functionArns.transcribe,
        Payload: { step: "await", "job.$": "$", "taskToken.$": "$$.Task.Token" },
      },
      ResultPath: "$.transcription.ended",
      TimeoutSeconds: TRANSCRIPTION_WAIT_SECONDS,
      Next: TRANSCRIPTION_JOB_STATES.read,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.read]).toMatchObject({
      Resource: functionArns.transcribe,
      Parameters: { step: "read", "job.$": "$" },
      ResultPath: "$.transcribe",
      Next: "Reason",
    });
  });

  it("polls nowhere: no Wait state and no GetTranscriptionJob integration", () => {
    const json = JSON.stringify(definition);
    expect(Object.values(states).filter((state) => state.Type === "Wait")).toEqual([]);
    expect(json).not.toContain("getTranscriptionJob");
  });

  it("counts a wait that timed out (a lost event) and waits again, up to MAX_TRANSCRIPTION_WAITS", () => {
    const wait = states[TRANSCRIPTION_JOB_STATES.await] as { Catch: Array<Record<string, unknown>> };
    expect(wait.Catch[0]).toEqual({
      ErrorEquals: ["States.Timeout"],
      ResultPath: null,
      Next: TRANSCRIPTION_JOB_STATES.count,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.count]).toMatchObject({
      Type: "Pass",
      ResultPath: "$.transcription.waits",
      Next: TRANSCRIPTION_JOB_STATES.waitedEnough,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.waitedEnough]).toEqual(
      expect.objectContaining({
        Choices: [
          {
            Variable: "$.transcription.waits.count",
            NumericGreaterThanEquals: MAX_TRANSCRIPTION_WAITS,
            Next: TRANSCRIPTION_JOB_STATES.read,
          },
        ],
        Default: TRANSCRIPTION_JOB_STATES.await,
      }),
    );
  });

  it("records every other failure of the job's states as Transcribe's", () => {
    const catcher = {
      ErrorEquals: ["States.ALL"],
      ResultPath: "$.failure",
      Next: recorderState("Transcribe"),
    };
    for (const name of ["Transcribe", TRANSCRIPTION_JOB_STATES.read])
      expect(states[name]?.Catch).toEqual([catcher]);
    expect(states[TRANSCRIPTION_JOB_STATES.await]?.Catch).toContainEqual(catcher);
  });

  it("lets an execution outlast a full Transcribe queue and a throttling horizon", () => {
    const waiting = MAX_TRANSCRIPTION_WAITS * TRANSCRIPTION_WAIT_SECONDS;
    expect(definition.TimeoutSeconds).toBe(executionTimeoutSeconds("service-job"));
    expect(definition.TimeoutSeconds).toBeGreaterThan(
      waiting + retryHorizonSeconds(RETRY_CLASSES.throttled.policy),
    );
    expect(buildVoicemailDefinition({ functionArns }).TimeoutSeconds).toBeLessThan(
      definition.TimeoutSeconds ?? 0,
    );
  });

  it("is chosen by the amazon-transcribe transcriber only", () => {
    expect(transcriptionModeOf({ transcriber: "amazon-transcribe" })).toBe("service-job");
    expect(transcriptionModeOf({ transcriber: "cartesia-ink" })).toBe("in-function");
    expect(transcriptionModeOf({ transcriber: "local" })).toBe("in-function");
    expect(buildVoicemailDefinition({ functionArns }).States[TRANSCRIPTION_JOB_STATES.await]).toBeUndefined();
  });
});
