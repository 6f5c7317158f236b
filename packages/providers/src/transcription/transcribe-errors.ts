import {
  TranscriptionFailed,
  TranscriptionRefused,
  TranscriptionThrottled,
  VoxtrailError,
} from "@voxtrail/core";
import { sdkErrorFields } from "../aws/sdk-error-fields";

/**
 * Amazon Transcribe errors that mean "no capacity now": too many concurrent jobs or requests
 * (`LimitExceededException`), a full job queue (`LimitExceededConcurrentJobException`, "Job
 * queueing": https://docs.aws.amazon.com/transcribe/latest/dg/job-queueing.html), or a failure
 * on the service's side (`InternalFailureException`). The SDK's retry strategy has already
 * retried the first and last by the time they reach the caller.
 */
const THROTTLING_ERRORS = new Set([
  "LimitExceededException",
  "LimitExceededConcurrentJobException",
  "InternalFailureException",
]);

/** Most characters of the service's own message a `TranscriptionRefused` carries. */
const REFUSAL_MESSAGE_LIMIT = 300;

/**
 * Maps what an Amazon Transcribe call threw to a named voxtrail error:
 * - `BadRequestException` (a parameter, the media or the output location the service will not
 *   take): {@link TranscriptionRefused}, carrying the service's message cut to 300 characters, which
 *   names parameters and URIs, never what was said in the audio;
 * - `LimitExceededException`, `LimitExceededConcurrentJobException`, `InternalFailureException`:
 *   {@link TranscriptionThrottled} (retryable);
 * - an abort (`AbortError`: the attempt's signal fired): the error itself, unchanged;
 * - anything else: {@link TranscriptionFailed} naming the error's name and HTTP status only, never
 *   the service's message.
 *
 * Errors that are already voxtrail errors pass through. `ConflictException` (the job name exists)
 * is not a failure of `start`: the caller handles it before mapping.
 *
 * @example
 * try {
 *   await client.send(new StartTranscriptionJobCommand(input), { abortSignal });
 * } catch (error) {
 *   throw transcribeError(error);
 * }
 */
export function transcribeError(error: unknown): Error {
  if (error instanceof VoxtrailError) return error;
  if (error instanceof Error && error.name === "AbortError") return error;
  const { name, status, attempts, message } = sdkErrorFields(error);
  const where = `Amazon Transcribe ${name}${status === undefined ? "" : ` (status ${status})`}`;
  if (name === "BadRequestException") {
    const reason =
      message.length > REFUSAL_MESSAGE_LIMIT ? `${message.slice(0, REFUSAL_MESSAGE_LIMIT)}…` : message;
    return new TranscriptionRefused(`${where}: ${reason || "no reason given"}`);
  }
  if (THROTTLING_ERRORS.has(name)) {
    return new TranscriptionThrottled(
      `${where}${attempts === undefined ? "" : ` after ${attempts} attempt${attempts === 1 ? "" : "s"}`}`,
    );
  }
  return new TranscriptionFailed(where);
}
