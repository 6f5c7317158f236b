import { type ArtifactFile, KEY_FOLDERS } from "./key-layout";

/**
 * The job's unredacted location (docs/redaction.md): with redaction on, the only place a
 * transcript with the caller's numbers in it is kept. Under the job's artifact prefix, so erasing
 * the job's artifacts erases it too; the stacks grant it only to the stages that need it.
 */
export const UNREDACTED_FOLDER = "unredacted";

/** Every job's unredacted location, as an IAM resource pattern under the bucket. */
export const UNREDACTED_KEY_PATTERN = `${KEY_FOLDERS.artifacts}*/${UNREDACTED_FOLDER}/*` as const;

/**
 * The key of an artifact in the job's unredacted location.
 *
 * @example
 * unredactedKey("job-1", "transcript.json"); // "artifacts/job-1/unredacted/transcript.json"
 */
export function unredactedKey(jobId: string, file: ArtifactFile): string {
  return `${KEY_FOLDERS.artifacts}${jobId}/${UNREDACTED_FOLDER}/${file}`;
}

/**
 * Where Amazon Transcribe writes the redacted transcript of a job with `ContentRedaction` whose
 * output key is `outputKey`: beside it, its file name prefixed `redacted-` (Transcribe's API
 * reference, SyncOutputConfiguration; docs/redaction.md says what a first deploy confirms).
 *
 * @example
 * transcribeRedactedOutputKey("artifacts/j/unredacted/transcribe-output.json"); // "artifacts/j/unredacted/redacted-transcribe-output.json"
 */
export function transcribeRedactedOutputKey(outputKey: string): string {
  const slash = outputKey.lastIndexOf("/");
  return `${outputKey.slice(0, slash + 1)}redacted-${outputKey.slice(slash + 1)}`;
}

/** Whether a key is in some job's unredacted location. */
export function isUnredactedKey(key: string): boolean {
  return key.startsWith(KEY_FOLDERS.artifacts) && key.split("/")[2] === UNREDACTED_FOLDER;
}
