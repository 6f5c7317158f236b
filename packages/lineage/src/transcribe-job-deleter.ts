import { DeleteTranscriptionJobCommand, type TranscribeClient } from "@aws-sdk/client-transcribe";
import type { ServiceJob } from "@voxtrail/core";
import type { ServiceJobTranscriber } from "@voxtrail/workflow";
import type { ServiceJobDeleter } from "./erase";

/** The service name activity records give Amazon Transcribe's jobs: its name in `PROVIDER_REGISTRY`. */
const TRANSCRIBE_SERVICE: ServiceJobTranscriber = "amazon-transcribe";

/**
 * Deletes Amazon Transcribe jobs with `DeleteTranscriptionJob` (the caller needs
 * `transcribe:DeleteTranscriptionJob` on them): the job's record at the service keeps the
 * audio's and the output's S3 locations for as long as it exists. `NotFoundException` is
 * `already-gone`; a job of another service is an error, so nothing is skipped silently.
 *
 * @example
 * await erase(store, graph, key, { deleteServiceJob: transcribeJobDeleter(new TranscribeClient({})) });
 */
export function transcribeJobDeleter(client: TranscribeClient): ServiceJobDeleter {
  return async (job: ServiceJob) => {
    if (job.service !== TRANSCRIBE_SERVICE) {
      throw new Error(`no way to delete a job of ${job.service} (job ${job.name})`);
    }
    try {
      await client.send(new DeleteTranscriptionJobCommand({ TranscriptionJobName: job.name }));
      return "deleted";
    } catch (error) {
      if ((error as { name?: string }).name === "NotFoundException") return "already-gone";
      throw error;
    }
  };
}
