import { systemErrorMeaning, VoxtrailError } from "@voxtrail/core";
import type { InputFile } from "./input-files";
import type { JobResult } from "./job-result";

/** A file's name on disk is not UTF-8: it can neither be opened by the name Node decoded nor stored as a key. */
export class InputNameNotUtf8 extends VoxtrailError {
  readonly retryable = false;
}

/** A file named to be run is not a regular file (a FIFO, a device, a socket): reading it could block forever. */
export class InputNotRegularFile extends VoxtrailError {
  readonly retryable = false;
}

/** The Fail-state-like error of a file whose job never started because its upload failed. */
export const UPLOAD_FAILED = "UploadFailed";

/** What to do about a named error a file's upload met, where its message does not say. */
const ADVICE: Record<string, string> = {
  InvalidKey: "rename the file",
  InputNameNotUtf8: "rename the file",
  InputNotRegularFile: "name voicemail files or directories",
};

/**
 * The result of a file whose upload failed (a name no store takes, a name that is not UTF-8, the
 * disk full, the file gone): FAILED with `UploadFailed` and a cause that names the error and says
 * what to do, without the file's name or any path. No job exists for it, so its `jobId` is `-`;
 * the other files of the batch run on.
 *
 * @example
 * uploadFailure(file, new InvalidKey("object key must not contain NUL or other control characters"));
 * // { file, key: "", jobId: "-", status: "FAILED", error: { error: "UploadFailed", cause: "InvalidKey: ...; rename the file" } }
 */
export function uploadFailure(file: InputFile, error: unknown): JobResult {
  const { name, message } =
    error instanceof VoxtrailError
      ? error
      : (systemErrorMeaning(error) ?? {
          name: error instanceof Error ? error.name : "Error",
          message: "the upload failed",
        });
  const advice = ADVICE[name];
  return {
    file,
    key: "",
    jobId: "-",
    status: "FAILED",
    error: { error: UPLOAD_FAILED, cause: `${name}: ${message}${advice ? `; ${advice}` : ""}` },
  };
}
