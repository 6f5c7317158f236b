import { describe, expect, it } from "vitest";
import {
  buildVoicemailDefinition,
  GET_TRANSCRIPTION_JOB_RESOURCE,
  MAX_TRANSCRIPTION_POLLS,
  STAGE_FUNCTIONS,
  TRANSCRIPTION_JOB_STATES,
  TRANSCRIPTION_POLL_SECONDS,
  transcriptionModeOf,
} from "../src";
import { recorderState } from "../src/voicemail-definition";
import { expectValidAsl } from "./expect-valid-asl";
import { testFunctionArns } from "./test-function-arns";

const functionArns = testFunctionArns(STAGE_FUNCTIONS);

describe("the voicemail definition with Transcribe as a service job", () => {
  const definition = buildVoicemailDefinition({ functionArns, transcription: "service-job" });
  const { States: states } = definition;

  it("is valid Amazon States Language", () => expectValidAsl(definition));

  it("starts the job, then waits, polls and decides in a loop, then reads it and goes on to Reason", () => {
    expect(states.Transcribe).toMatchObject({
      Resource: functionArns.transcribe,
      Parameters: { step: "start", "job.$": "$" },
      ResultPath: "$.transcription",
      Next: TRANSCRIPTION_JOB_STATES.wait,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.wait]).toMatchObject({
      Type: "Wait",
      Seconds: TRANSCRIPTION_POLL_SECONDS,
      Next: TRANSCRIPTION_JOB_STATES.poll,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.poll]).toMatchObject({
      Resource: GET_TRANSCRIPTION_JOB_RESOURCE,
      Parameters: { "TranscriptionJobName.$": "$.transcription.jobName" },
      Next: TRANSCRIPTION_JOB_STATES.ended,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.ended]).toMatchObject({
      Type: "Choice",
      Default: TRANSCRIPTION_JOB_STATES.count,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.count]).toMatchObject({
      Type: "Pass",
      Next: TRANSCRIPTION_JOB_STATES.wait,
    });
    expect(states[TRANSCRIPTION_JOB_STATES.read]).toMatchObject({
      Resource: functionArns.transcribe,
      Parameters: { step: "read", "job.$": "$" },
      ResultPath: "$.transcribe",
      Next: "Reason",
    });
  });

  it("stops waiting after MAX_TRANSCRIPTION_POLLS polls: the poll before the last count goes to the read", () => {
    const choice = states[TRANSCRIPTION_JOB_STATES.ended] as { Choices: Array<Record<string, unknown>> };
    expect(choice.Choices[1]).toEqual({
      Variable: "$.transcription.polls.count",
      NumericGreaterThanEquals: MAX_TRANSCRIPTION_POLLS - 1,
      Next: TRANSCRIPTION_JOB_STATES.read,
    });
  });

  it("retries throttled polls, and records every failure of the job's states as Transcribe's", () => {
    const poll = states[TRANSCRIPTION_JOB_STATES.poll] as { Retry: Array<{ ErrorEquals: string[] }> };
    expect(poll.Retry[0]?.ErrorEquals).toEqual([
      "Transcribe.LimitExceededException",
      "Transcribe.InternalFailureException",
    ]);
    for (const name of ["Transcribe", TRANSCRIPTION_JOB_STATES.poll, TRANSCRIPTION_JOB_STATES.read]) {
      expect(states[name]?.Catch).toEqual([
        { ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: recorderState("Transcribe") },
      ]);
    }
  });

  it("is chosen by the amazon-transcribe transcriber only", () => {
    expect(transcriptionModeOf({ transcriber: "amazon-transcribe" })).toBe("service-job");
    expect(transcriptionModeOf({ transcriber: "cartesia-ink" })).toBe("in-function");
    expect(transcriptionModeOf({ transcriber: "local" })).toBe("in-function");
    expect(buildVoicemailDefinition({ functionArns }).States[TRANSCRIPTION_JOB_STATES.wait]).toBeUndefined();
  });
});
