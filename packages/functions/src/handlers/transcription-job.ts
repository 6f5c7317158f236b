import { InvalidInput } from "@voxtrail/core";
import { type StageHandler, stageHandler } from "../kernel/stage-handler";
import { ResumeTranscriptionInput } from "../state";
import { awaitTranscriptionStage } from "./await-transcription";
import { readTranscriptionStage } from "./read-transcription";
import { resumeTranscription } from "./resume-transcription";
import { startTranscriptionStage, type TranscriptionJobNeeds } from "./start-transcription";

/** The steps of a transcription job the workflow's Task states run, by the `step` they pass. */
export const TRANSCRIPTION_JOB_STEPS = {
  start: startTranscriptionStage,
  await: awaitTranscriptionStage,
  read: readTranscriptionStage,
} as const;

/**
 * The Transcribe function's handler when transcription is a job on a managed service: one
 * function, four steps, chosen by the input's `step`. The workflow's `Transcribe` Task passes
 * `start`, `AwaitTranscription` `await` (with its task token), `ReadTranscription` `read`; each is
 * a stage of its own to the kernel. The job's state-change event passes `resume`
 * ({@link resumeTranscription}: it works on no job's data). An input naming no step is
 * `InvalidInput`.
 *
 * @example
 * const handler = transcriptionJobHandler(deps);
 * await handler({ step: "start", job: jobState }, context);
 */
export function transcriptionJobHandler(deps: TranscriptionJobNeeds): StageHandler<unknown> {
  const steps: Record<string, StageHandler<unknown>> = {
    start: stageHandler(TRANSCRIPTION_JOB_STEPS.start, deps),
    await: stageHandler(TRANSCRIPTION_JOB_STEPS.await, deps),
    read: stageHandler(TRANSCRIPTION_JOB_STEPS.read, deps),
    resume: async (event) => {
      const input = ResumeTranscriptionInput.safeParse(event);
      if (!input.success) throw new InvalidInput("Transcribe: the resume step needs a job name and a status");
      return { outcome: await resumeTranscription(input.data, deps) };
    },
  };
  return async (event, context) => {
    const step = (event as { step?: unknown } | null)?.step;
    const handler = typeof step === "string" && Object.hasOwn(steps, step) ? steps[step] : undefined;
    if (!handler) {
      throw new InvalidInput(
        'Transcribe: with a transcription service configured, the input must name its step ("start", "await", "read" or "resume")',
      );
    }
    return handler(event, context);
  };
}
