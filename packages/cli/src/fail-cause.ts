import { lambdaErrorCause } from "@voxtrail/core";

/**
 * A Fail state's error and cause as a line shows them. Lambda reports an error that left a
 * function as JSON `{"errorType", "errorMessage"}`: shown as `errorType: errorMessage`, the type
 * left out where it is the Fail state's error already. Any other cause is shown as it is.
 *
 * @example
 * failText({ error: "IngestFailed", cause: '{"errorType":"DiskFull","errorMessage":"no space left ..."}' });
 * // "IngestFailed: DiskFull: no space left ..."
 */
export function failText(failure: { error: string; cause: string } | undefined): string {
  return `${failure?.error}: ${failCause(failure)}`;
}

function failCause(failure: { error: string; cause: string } | undefined): string | undefined {
  const lambda = lambdaErrorCause(failure?.cause);
  if (!lambda) return failure?.cause;
  const { errorType, errorMessage } = lambda;
  return errorType !== undefined && errorType !== failure?.error
    ? `${errorType}: ${errorMessage}`
    : errorMessage;
}
