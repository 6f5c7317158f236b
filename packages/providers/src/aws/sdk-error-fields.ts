/**
 * What an AWS SDK error says about itself, each field only when it has the expected type: names,
 * codes and figures, safe to put in an error message (never the service's message text, which
 * `message` holds only for the mappers that match on it).
 */
export interface SdkErrorFields {
  /** The exception's name (`ThrottlingException`), `Error` without one, the value's type for a non-object. */
  name: string;
  /** `$metadata.httpStatusCode`. */
  status: number | undefined;
  /** `$metadata.requestId`. */
  requestId: string | undefined;
  /** `$metadata.attempts`: how many tries the SDK made. */
  attempts: number | undefined;
  /** `code`, or SageMaker's `ErrorCode`. */
  code: string | undefined;
  /** SageMaker's `OriginalStatusCode`: the status the model container answered with. */
  originalStatus: number | undefined;
  /** The error's message, `""` without one. */
  message: string;
}

/**
 * Reads the fields an AWS SDK v3 error carries, whatever was thrown: the one place the provider
 * mappers (Bedrock, Transcribe, SageMaker, S3 records) read `$metadata` and the service fields.
 *
 * @example
 * const { name, status } = sdkErrorFields(error); // { name: "ThrottlingException", status: 429, ... }
 */
export function sdkErrorFields(error: unknown): SdkErrorFields {
  if (typeof error !== "object" || error === null) {
    return {
      name: typeof error,
      status: undefined,
      requestId: undefined,
      attempts: undefined,
      code: undefined,
      originalStatus: undefined,
      message: "",
    };
  }
  const fields = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    ErrorCode?: unknown;
    OriginalStatusCode?: unknown;
    $metadata?: { httpStatusCode?: unknown; requestId?: unknown; attempts?: unknown };
  };
  const code = fields.code ?? fields.ErrorCode;
  return {
    name: typeof fields.name === "string" ? fields.name : "Error",
    status: numberOrUndefined(fields.$metadata?.httpStatusCode),
    requestId: typeof fields.$metadata?.requestId === "string" ? fields.$metadata.requestId : undefined,
    attempts: numberOrUndefined(fields.$metadata?.attempts),
    code: typeof code === "string" ? code : undefined,
    originalStatus: numberOrUndefined(fields.OriginalStatusCode),
    message: typeof fields.message === "string" ? fields.message : "",
  };
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}
