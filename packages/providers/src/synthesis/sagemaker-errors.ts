import {
  SynthesisFailed,
  SynthesisRejected,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
  VoxtrailError,
} from "@voxtrail/core";
import { sdkErrorFields } from "../aws/sdk-error-fields";

/** Errors SageMaker Runtime (or its SDK) raises when the endpoint has no capacity for now. */
const THROTTLING_ERRORS = new Set(["ModelNotReadyException", "ThrottlingException", "ServiceUnavailable"]);

/** Errors SageMaker Runtime raises inside the response stream, after it began. */
const STREAM_ERRORS = new Set(["ModelStreamError", "InternalStreamFailure"]);

/** Socket-level failures Node reports when the connection breaks mid-response. */
const CONNECTION_BREAKS = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ETIMEDOUT"]);

/** Where the failure happened: before or after the first audio arrived. */
export interface FailureContext {
  /** Whether any audio had been received when the error was raised. */
  audioStarted: boolean;
}

/**
 * Maps what `InvokeEndpointWithResponseStream` threw to a named voxtrail error.
 *
 * - `ModelError` with `OriginalStatusCode` 429, `ModelNotReadyException`, `ThrottlingException`,
 *   `ServiceUnavailable`: {@link SynthesisThrottled} (retry with backoff);
 * - `ModelError` with any other 4xx original status (422: bad input): {@link SynthesisRejected};
 * - `ModelStreamError`, `InternalStreamFailure`, or a broken connection once audio had begun:
 *   {@link SynthesisStreamInterrupted};
 * - anything else: {@link SynthesisFailed}. Errors that are already voxtrail errors pass through.
 *
 * Messages carry the error name, status codes and the request id, never the SDK's message: a model's
 * `OriginalMessage` can echo the transcript, which must not reach logs or execution history.
 *
 * @example
 * try {
 *   await client.send(command);
 * } catch (error) {
 *   throw toSynthesisError(error, { audioStarted: false });
 * }
 */
export function toSynthesisError(error: unknown, context: FailureContext): VoxtrailError {
  if (error instanceof VoxtrailError) return error;
  const { name, code, originalStatus, requestId } = sdkErrorFields(error);
  const detail = [
    originalStatus === undefined ? undefined : `original status ${originalStatus}`,
    requestId === undefined ? undefined : `request id ${requestId}`,
  ].filter((part) => part !== undefined);
  const message = `SageMaker ${name}${code === undefined ? "" : ` (${code})`}${detail.length > 0 ? `: ${detail.join(", ")}` : ""}`;

  if (name === "ModelError" && originalStatus === 429) return new SynthesisThrottled(message);
  if (THROTTLING_ERRORS.has(name)) return new SynthesisThrottled(message);
  if (
    name === "ModelError" &&
    originalStatus !== undefined &&
    originalStatus >= 400 &&
    originalStatus < 500
  ) {
    return new SynthesisRejected(message);
  }
  if (STREAM_ERRORS.has(name)) return new SynthesisStreamInterrupted(message);
  if (context.audioStarted && code !== undefined && CONNECTION_BREAKS.has(code)) {
    return new SynthesisStreamInterrupted(message);
  }
  return new SynthesisFailed(message);
}
