/**
 * Named errors. Step Functions matches `error.name`, so every class sets its own name, and
 * every message is written to be safe in logs and execution history: it says what is wrong
 * with the input, never what the input contains.
 */

/** Base class: `name` is the class's error name; `retryable` says whether a retry may help. */
export abstract class VoxtrailError extends Error {
  abstract readonly retryable: boolean;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The audio is not something the pipeline can decode: empty, truncated, not WAV, unsupported encoding. */
export class InvalidAudio extends VoxtrailError {
  readonly retryable = false;
}

/** A state payload or request does not have the shape the stage expects. */
export class InvalidInput extends VoxtrailError {
  readonly retryable = false;
}

/** An object key is not acceptable to the store (escapes the root, reserved, malformed). */
export class InvalidKey extends VoxtrailError {
  readonly retryable = false;
}

/** The store has no object under the key. */
export class ObjectNotFound extends VoxtrailError {
  readonly retryable = false;
}

/**
 * The store refused to read an object (S3's 403). Without `s3:ListBucket`, S3 answers a GET or
 * HEAD of a missing key with 403 too, so this is never taken as "absent": the caller cannot tell a
 * missing object from a forbidden one. The message names the operation and the key's top-level
 * prefix only (the rest of a key may be caller data).
 */
export class StoreAccessDenied extends VoxtrailError {
  readonly retryable = false;

  /**
   * For a 403 answer to `operation` (e.g. `HeadObject`) on `key`.
   *
   * @example
   * StoreAccessDenied.forRead("GetObject", "reports/vm-1/report.json").message;
   * // 'S3 GetObject under prefix "reports/" was denied (403). ... needs s3:ListBucket on prefix "reports/" ...'
   */
  static forRead(operation: string, key: string, options?: ErrorOptions): StoreAccessDenied {
    const slash = key.indexOf("/");
    const prefix = slash > 0 ? `prefix "${key.slice(0, slash + 1)}"` : "the bucket's top level";
    return new StoreAccessDenied(
      `S3 ${operation} under ${prefix} was denied (403). S3 also answers 403 for a missing key when ` +
        `the caller may not list the bucket, so the object may be missing or forbidden: the function's ` +
        `role needs s3:ListBucket on ${prefix} to tell a missing key from a forbidden one ` +
        `(and s3:GetObject to read it).`,
      options,
    );
  }
}

/**
 * The object under a key is no longer the one an event named (another upload replaced it, and the
 * store keeps no versions): the job that event started cannot read its own source.
 */
export class ObjectChanged extends VoxtrailError {
  readonly retryable = false;
}

/** The speech recogniser failed or is missing. */
export class TranscriptionFailed extends VoxtrailError {
  readonly retryable = false;
}

/** The transcription service has no capacity now (throttled, limit of concurrent jobs): retry with backoff. */
export class TranscriptionThrottled extends VoxtrailError {
  readonly retryable = true;
}

/** The transcription service refused the request or its audio: retrying the same input will not help. */
export class TranscriptionRefused extends VoxtrailError {
  readonly retryable = false;
}

/** A transcription job ended `FAILED`; the message is the service's reason, never the caller's words. */
export class TranscriptionJobFailed extends VoxtrailError {
  readonly retryable = false;
}

/** A transcription job had not ended when the workflow stopped waiting for it. */
export class TranscriptionTimedOut extends VoxtrailError {
  readonly retryable = false;
}

/** The reasoner could not produce a structured record. */
export class ReasoningFailed extends VoxtrailError {
  readonly retryable = false;
}

/** The reasoning model answered, but not with a record of the required shape. */
export class ReasoningInvalidOutput extends VoxtrailError {
  readonly retryable = false;
}

/** The reasoning model has no capacity now (throttled, unavailable, not ready): retry with backoff. */
export class ReasoningThrottled extends VoxtrailError {
  readonly retryable = true;
}

/** The synthesis endpoint has no capacity now (429, not ready, throttled): retry with backoff. */
export class SynthesisThrottled extends VoxtrailError {
  readonly retryable = true;
}

/** The synthesis endpoint rejected the request (422): retrying the same input will not help. */
export class SynthesisRejected extends VoxtrailError {
  readonly retryable = false;
}

/** The audio stream broke after it began: the partial audio is discarded and the stage retried. */
export class SynthesisStreamInterrupted extends VoxtrailError {
  readonly retryable = true;
}

/** Synthesis failed for a reason that is neither capacity, rejection nor interruption. */
export class SynthesisFailed extends VoxtrailError {
  readonly retryable = false;
}

/**
 * A stage attempt ran past its invocation's time limit: it is recorded as failed at the limit,
 * whatever it does afterwards (its late outputs are no stage's result).
 */
export class StageTimedOut extends VoxtrailError {
  readonly retryable = false;
}

/**
 * A stage attempt was cut off by the process being interrupted (SIGINT or SIGTERM): it is recorded
 * as failed then, whatever it does afterwards. Rerunning the job runs the stage again.
 */
export class AttemptInterrupted extends VoxtrailError {
  readonly retryable = false;
}

/** A provider would send data into a boundary the stage environment's policy does not allow. */
export class BoundaryViolation extends VoxtrailError {
  readonly retryable = false;
}

/**
 * Error names that say a service has no capacity now: the workflow waits them out with long
 * backoff and full jitter (`RETRY_CLASSES.throttled`, packages/workflow/src/retry-policies.ts).
 * `Lambda.TooManyRequestsException` is Lambda's when a function's reserved concurrency (a gate
 * in front of a service) is all in use.
 */
export const THROTTLED_ERROR_NAMES = [
  SynthesisThrottled.name,
  ReasoningThrottled.name,
  TranscriptionThrottled.name,
  "Lambda.TooManyRequestsException",
] as const;

/**
 * Error names a quick retry cures: a reply stream cut mid-way, and the Lambda service errors AWS
 * recommends retrying (`RETRY_CLASSES.transient`).
 */
export const TRANSIENT_ERROR_NAMES = [
  SynthesisStreamInterrupted.name,
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
] as const;

/** The event bus did not accept an event. */
export class EventPublishFailed extends VoxtrailError {
  readonly retryable = true;
}

/**
 * A row of an IVR prompt manifest that cannot become a prompt. Each subclass names one reason;
 * the row is reported with its line number and the other rows go on. Messages name the line and
 * the rule, never the prompt's text.
 */
export abstract class InvalidPromptRow extends VoxtrailError {
  readonly retryable = false;
}

/** The row is not a well-formed CSV record or JSON object, or lacks an `id` or `text` field. */
export class PromptRowMalformed extends InvalidPromptRow {}

/** The row's bytes are not valid UTF-8. */
export class PromptTextInvalidUtf8 extends InvalidPromptRow {}

/** The prompt's text is empty, or only white space. */
export class PromptTextEmpty extends InvalidPromptRow {}

/** The prompt's text is longer than the synthesis provider accepts. */
export class PromptTextTooLong extends InvalidPromptRow {}

/** The prompt's text (or id) holds control characters. */
export class PromptTextControlCharacters extends InvalidPromptRow {}

/** The prompt's id is not usable as an object name (letters, digits, `.`, `_`, `-`; at most 128). */
export class PromptIdInvalid extends InvalidPromptRow {}

/** Another row earlier in the manifest has the same id. */
export class PromptIdDuplicate extends InvalidPromptRow {}

/** The row asks for an audio format the prompts workflow does not produce. */
export class PromptFormatUnknown extends InvalidPromptRow {}

/**
 * The row's language (or, without one, the default language) is not one the configured
 * synthesizer speaks. The message names the language, the languages it speaks and what to do.
 */
export class PromptLanguageUnsupported extends InvalidPromptRow {}

/**
 * A synthesized prompt's audio cannot be speech of its text: near silent, or too short for its
 * number of words. The message gives the measured level or duration and the threshold, never the
 * text. Not retried: the same text gets the same audio.
 */
export class PromptAudioImplausible extends VoxtrailError {
  readonly retryable = false;
}

/** The manifest as a whole cannot be read as prompts: unknown file type. */
export class PromptManifestUnreadable extends VoxtrailError {
  readonly retryable = false;
}

/** The manifest holds no prompt rows at all: it is empty, only blank lines, or a CSV header alone. */
export class PromptManifestEmpty extends VoxtrailError {
  readonly retryable = false;
}
