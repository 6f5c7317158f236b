import { ReasoningFailed, ReasoningThrottled, VoxtrailError } from "@voxtrail/core";
import { sdkErrorFields } from "../aws/sdk-error-fields";

/** Bedrock Runtime errors that mean "no capacity now": retry with backoff. */
const THROTTLING_ERRORS = new Set([
  "ThrottlingException",
  "ServiceUnavailableException",
  "ModelNotReadyException",
]);

/**
 * Maps what Bedrock Runtime's `Converse` threw to a named voxtrail error: `ThrottlingException`,
 * `ServiceUnavailableException` and `ModelNotReadyException` are {@link ReasoningThrottled}
 * (retryable); anything else is {@link ReasoningFailed}. Messages carry the error name, HTTP status
 * and request id, never the service's message: a `ValidationException` can quote the prompt.
 *
 * @example
 * try {
 *   await client.send(new ConverseCommand(input));
 * } catch (error) {
 *   throw toReasoningError(error);
 * }
 */
export function toReasoningError(error: unknown): VoxtrailError {
  if (error instanceof VoxtrailError) return error;
  const { name, status, requestId } = sdkErrorFields(error);
  const detail = [
    status === undefined ? undefined : `status ${status}`,
    requestId === undefined ? undefined : `request id ${requestId}`,
  ].filter((part) => part !== undefined);
  const message = `Bedrock ${name}${detail.length > 0 ? `: ${detail.join(", ")}` : ""}`;
  return THROTTLING_ERRORS.has(name) ? new ReasoningThrottled(message) : new ReasoningFailed(message);
}
