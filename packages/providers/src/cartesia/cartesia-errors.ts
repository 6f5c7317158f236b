import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@cartesia/cartesia-js";
import {
  SynthesisFailed,
  SynthesisRejected,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
  TranscriptionFailed,
  VoxtrailError,
} from "@voxtrail/core";
import { ApiKeyUnavailable } from "./cartesia-connection";

/**
 * What a Cartesia failure was, reduced to what is safe to log: a status code or the kind of
 * failure. The API's own messages are dropped: they can quote the request.
 */
type CartesiaFailure =
  | { kind: "status"; status: number }
  | { kind: "connection" | "timeout" | "api-key" | "malformed" | "other" };

function classify(error: unknown): CartesiaFailure {
  if (error instanceof ApiKeyUnavailable) return { kind: "api-key" };
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout" };
  if (error instanceof APIConnectionError) return { kind: "connection" };
  if (error instanceof APIError && typeof error.status === "number") {
    return { kind: "status", status: error.status };
  }
  // The SDK parses each SSE event's data with JSON.parse.
  if (error instanceof SyntaxError) return { kind: "malformed" };
  return { kind: "other" };
}

function describe(failure: CartesiaFailure): string {
  switch (failure.kind) {
    case "status":
      return `status ${failure.status}`;
    case "api-key":
      return "the API key could not be read";
    case "connection":
      return "connection error";
    case "timeout":
      return "request timed out";
    case "malformed":
      return "malformed response";
    default:
      return "unexpected error";
  }
}

/**
 * Maps what `stt.transcribe` threw to {@link TranscriptionFailed}, whose message carries the HTTP
 * status (or the kind of failure) only.
 *
 * @example
 * try {
 *   await client.stt.transcribe(params);
 * } catch (error) {
 *   throw toTranscriptionError(error);
 * }
 */
export function toTranscriptionError(error: unknown): VoxtrailError {
  if (error instanceof VoxtrailError) return error;
  return new TranscriptionFailed(`Cartesia STT failed: ${describe(classify(error))}`);
}

/** Where a synthesis failure happened: before the response, or while its stream was being read. */
export interface StreamContext {
  /** Whether the response (status 200, SSE headers) had arrived. */
  streamOpen: boolean;
}

/**
 * Maps a Cartesia TTS failure (what `tts.generateSSE` threw, or a status from an SSE `error` event)
 * to a named voxtrail error:
 * - status 429: {@link SynthesisThrottled};
 * - any other 4xx: {@link SynthesisRejected};
 * - the connection breaking once the stream was open: {@link SynthesisStreamInterrupted};
 * - anything else (5xx, a connection refused, a malformed event, a missing API key):
 *   {@link SynthesisFailed}.
 *
 * @example
 * throw toCartesiaSynthesisError(error, { streamOpen: true });
 */
export function toCartesiaSynthesisError(error: unknown, context: StreamContext): VoxtrailError {
  if (error instanceof VoxtrailError) return error;
  return synthesisErrorFor(classify(error), context);
}

/** The named error for an SSE `error` event carrying `statusCode`. */
export function synthesisErrorForEvent(statusCode: number | undefined): VoxtrailError {
  if (statusCode === undefined) return new SynthesisFailed("Cartesia TTS sent an error event");
  return synthesisErrorFor({ kind: "status", status: statusCode }, { streamOpen: true }, "error event, ");
}

function synthesisErrorFor(failure: CartesiaFailure, context: StreamContext, prefix = ""): VoxtrailError {
  const message = `Cartesia TTS failed: ${prefix}${describe(failure)}`;
  if (failure.kind === "status") {
    if (failure.status === 429) return new SynthesisThrottled(message);
    if (failure.status >= 400 && failure.status < 500) return new SynthesisRejected(message);
    return new SynthesisFailed(message);
  }
  // The SDK surfaces a socket that broke mid-body as a plain error from the body's reader.
  if (context.streamOpen && failure.kind === "other") {
    return new SynthesisStreamInterrupted("Cartesia TTS stream broke before its done event");
  }
  return new SynthesisFailed(message);
}
