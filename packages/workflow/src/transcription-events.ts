import { type InputTransformer, transformedInput } from "./input-transformer";
import type { EventPattern } from "./rule-pattern";

/**
 * The EventBridge rule pattern that resumes the voicemail workflows waiting for a stage's
 * transcription jobs: Amazon Transcribe's "Transcribe Job State Change" for a job that ended
 * (COMPLETED or FAILED), whose name starts with the stage's prefix (`<app>-<stage>-`), so one
 * stage's events never reach another's function ("Using Amazon EventBridge with Amazon
 * Transcribe", https://docs.aws.amazon.com/transcribe/latest/dg/monitoring-events.html).
 *
 * @example
 * transcriptionEndedPattern("voxtrail-production-").detail; // { TranscriptionJobName: [{ prefix: "voxtrail-production-" }], ... }
 */
export function transcriptionEndedPattern(jobNamePrefix: string): EventPattern {
  return {
    source: ["aws.transcribe"],
    "detail-type": ["Transcribe Job State Change"],
    detail: {
      TranscriptionJobName: [{ prefix: jobNamePrefix }],
      TranscriptionJobStatus: ["COMPLETED", "FAILED"],
    },
  };
}

/**
 * What the rule's target, the Transcribe function, is given instead of the event (EventBridge's
 * input transformer, API reference "InputTransformer"): its resume step, the job's name and its
 * status, and nothing else of the event. A placeholder outside quotes takes the value as JSON.
 */
export const TRANSCRIPTION_ENDED_INPUT: InputTransformer = {
  inputPaths: { jobName: "$.detail.TranscriptionJobName", status: "$.detail.TranscriptionJobStatus" },
  inputTemplate: '{"step":"resume","jobName":<jobName>,"status":<status>}',
};

/**
 * `event` as the rule's input transformer hands it to the function.
 *
 * @example
 * transcriptionEndedInput(event); // { step: "resume", jobName: "voxtrail-dev-vm-...-run-1", status: "COMPLETED" }
 */
export function transcriptionEndedInput(event: unknown): unknown {
  return transformedInput(TRANSCRIPTION_ENDED_INPUT, event);
}
