/** The error a Lambda function ended with, as Step Functions puts it in a Fail state's `Cause`. */
export interface LambdaErrorCause {
  errorType?: string;
  errorMessage: string;
}

/**
 * The `{"errorType", "errorMessage"}` of a Lambda error's Cause (the JSON Step Functions passes on
 * from the Lambda runtime), or `undefined` for a Cause that is not one (plain text, no message).
 *
 * @example
 * lambdaErrorCause('{"errorType":"DiskFull","errorMessage":"no space left ..."}');
 * // { errorType: "DiskFull", errorMessage: "no space left ..." }
 */
export function lambdaErrorCause(cause: string | undefined): LambdaErrorCause | undefined {
  try {
    const { errorType, errorMessage } = JSON.parse(cause ?? "") as {
      errorType?: unknown;
      errorMessage?: unknown;
    };
    if (typeof errorMessage !== "string") return undefined;
    return typeof errorType === "string" ? { errorType, errorMessage } : { errorMessage };
  } catch {
    return undefined;
  }
}
