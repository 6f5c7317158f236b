import { InvalidInput } from "@voxtrail/core";
import { type StageHandler, stageHandler } from "../kernel/stage-handler";
import { readTranscriptionStage } from "./read-transcription";
import { startTranscriptionStage, type TranscriptionJobNeeds } from "./start-transcription";

/** The steps of a transcription job, by the `step` the workflow's Task states pass. */
export const TRANSCRIPTION_JOB_STEPS = {
  start: startTranscriptionStage,
  read: readTranscriptionStage,
} as const;

/**
 * The Transcribe function's handler when transcription is a job on a managed service: one
 * function, two steps, chosen by the input's `step` (the workflow's `Transcribe` Task passes
 * `start`, its `ReadTranscription` Task `read`; between them it waits for the job). Each step is a
 * stage of its own to the kernel. An input naming neither step is `InvalidInput`.
 *
 * @example
 * const handler = transcriptionJobHandler(deps);
 * await handler({ step: "start", job: jobState }, context);
 */
export function transcriptionJobHandler(deps: TranscriptionJobNeeds): StageHandler<unknown> {
  const steps: Record<string, StageHandler<unknown>> = {
    start: stageHandler(TRANSCRIPTION_JOB_STEPS.start, deps),
    read: stageHandler(TRANSCRIPTION_JOB_STEPS.read, deps),
  };
  return async (event, context) => {
    const step = (event as { step?: unknown } | null)?.step;
    const handler = typeof step === "string" && Object.hasOwn(steps, step) ? steps[step] : undefined;
    if (!handler) {
      throw new InvalidInput(
        'Transcribe: with a transcription service configured, the input must name its step ("start" or "read")',
      );
    }
    return handler(event, context);
  };
}
