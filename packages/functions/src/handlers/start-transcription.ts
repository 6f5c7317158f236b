import type { TranscriptionService, WorkflowCallback } from "@voxtrail/core";
import { ARTIFACT_FILES, keys, unredactedKey } from "@voxtrail/workflow";
import { transcriptionJobLanguage } from "../call-language";
import { defineStage, type StageNeeds } from "../kernel/stage-definition";
import { StartTranscriptionInput, type TranscriptionState } from "../state";

/**
 * What the transcription job's steps need: the service, the voicemails' language, and what
 * resumes the workflow waiting for the job.
 */
export type TranscriptionJobNeeds = StageNeeds<"language" | "languages" | "redaction"> & {
  transcriptionService: TranscriptionService;
  workflowCallback: WorkflowCallback;
};

/**
 * Transcribe's first step when transcription is a job on a managed service (Amazon Transcribe):
 * starts the job on the normalised audio where it lies in the bucket, with its output written into
 * the job's own artifacts (`transcribe-output.json`), queued by the service when its concurrent
 * jobs are all busy, and returns where the workflow finds both.
 * The job's name comes from the job id and its run, so a retried start (the function timed out
 * after the service took the request) finds its own job and goes on waiting for it. Its success is
 * recorded by the read step, which covers the transcription from this start; a failed start is
 * recorded here.
 */
export const startTranscriptionStage = defineStage<TranscriptionJobNeeds>()({
  name: "Transcribe",
  follows: ["Ingest"],
  input: StartTranscriptionInput,
  recorded: "failures",
  flows: (deps) => [
    { processor: deps.transcriptionService.processor, kinds: ["normalized-audio", "transcription-output"] },
  ],
  open: ({ job }) => ({ jobId: job.jobId, inputs: [job.normalizedAudio], carry: undefined }),
  run: async ({ job }, { deps, activity, clock, signal }): Promise<TranscriptionState> => {
    const service = deps.transcriptionService;
    activity.processors.push(service.processor);
    activity.measures.audioMs = job.audioMs;
    const requestedAt = (deps.now?.() ?? new Date()).toISOString();
    const jobName = service.jobName(job.jobId, job.run);
    // Transcribe takes an S3 URI in the caller's region; the local store answers to the same form.
    const mediaUri = `s3://${deps.store.bucket}/${job.normalizedAudio.key}`;
    // With redaction on, Transcribe writes its output (both transcripts) into the unredacted location.
    const outputKey = (deps.redaction ? unredactedKey : keys.artifact)(
      job.jobId,
      ARTIFACT_FILES.transcribeOutput,
    );
    const started = await service.start({
      jobName,
      mediaUri,
      outputBucket: deps.store.bucket,
      outputKey,
      ...transcriptionJobLanguage(job, deps),
      ...(deps.redaction ? { redaction: deps.redaction } : {}),
      signal,
    });
    clock.mark("transcription.requested");
    const startStepMs = clock.timing("transcribe.startStep", "handler.start", "transcription.requested").ms;
    deps.logger.info("transcription job requested", { transcriptionJob: jobName, started });
    return { jobName, mediaUri, outputKey, requestedAt, startStepMs, waits: { count: 0 } };
  },
});
