import { keys } from "@voxtrail/workflow";
import { defineStage } from "../kernel/stage-definition";
import { AwaitTranscriptionInput } from "../state";
import type { TranscriptionJobNeeds } from "./start-transcription";

/** Statuses a transcription job ends in. */
const ENDED = new Set(["COMPLETED", "FAILED"]);

/**
 * Transcribe's wait for a job on a managed service, run each time the workflow starts waiting
 * (`AwaitTranscription`, a `.waitForTaskToken` Task): stores the task token under the job's name
 * (`transcription-waits/<jobName>.json`), where the resume step finds it when the job's
 * state-change event arrives, then looks at the job once, and resumes the workflow itself when
 * the job has already ended (its event may have come before the token was stored). So no event is
 * missed: it either finds the token, or the job had ended when this step looked. Its failures are
 * recorded; its success is the read step's to record.
 */
export const awaitTranscriptionStage = defineStage<TranscriptionJobNeeds>()({
  name: "Transcribe",
  follows: ["Ingest"],
  input: AwaitTranscriptionInput,
  recorded: "failures",
  flows: (deps) => [{ processor: deps.transcriptionService.processor, kinds: ["normalized-audio"] }],
  open: ({ job }) => ({ jobId: job.jobId, inputs: [job.normalizedAudio], carry: undefined }),
  run: async ({ job, taskToken }, { deps, activity, signal }) => {
    const service = deps.transcriptionService;
    activity.processors.push(service.processor);
    const { jobName } = job.transcription;
    await deps.store.put(keys.transcriptionWait(jobName), JSON.stringify({ taskToken }), {
      contentType: "application/json",
    });
    const { status } = await service.describe(jobName, { signal });
    const resumed = ENDED.has(status) ? await deps.workflowCallback.resume(taskToken, { status }) : undefined;
    deps.logger.info("waiting for transcription job", { transcriptionJob: jobName, status, resumed });
    return { status };
  },
});
