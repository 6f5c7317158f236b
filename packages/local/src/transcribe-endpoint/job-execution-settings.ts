import { ServiceError } from "./json-protocol";

/** `JobExecutionSettings` of `StartTranscriptionJob`: whether the job may wait in the queue. */
export interface JobExecutionSettings {
  AllowDeferredExecution?: boolean;
  DataAccessRoleArn?: string;
}

/** The role ARN pattern of `JobExecutionSettings.DataAccessRoleArn` (20 to 2,048 characters). */
const ROLE_ARN =
  /^arn:(aws|aws-cn|aws-us-gov|aws-iso-{0,1}[a-z]{0,1}):iam::[0-9]{0,63}:role\/[A-Za-z0-9:_/+=,@.-]{0,1024}$/;

/**
 * The request's `JobExecutionSettings`, checked as the API reference states
 * (https://docs.aws.amazon.com/transcribe/latest/APIReference/API_JobExecutionSettings.html):
 * `AllowDeferredExecution` and `DataAccessRoleArn` come together, and the ARN is an IAM role's.
 *
 * @throws ServiceError 400 `BadRequestException` when they do not.
 * @example
 * const settings = jobExecutionSettings(body.JobExecutionSettings); // undefined when absent
 */
export function jobExecutionSettings(value: unknown): JobExecutionSettings | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) throw badRequest("JobExecutionSettings must be an object");
  const { AllowDeferredExecution: allow, DataAccessRoleArn: role } = value as Record<string, unknown>;
  if (allow !== undefined && typeof allow !== "boolean") {
    throw badRequest("JobExecutionSettings.AllowDeferredExecution must be a boolean");
  }
  if (role !== undefined && (typeof role !== "string" || role.length < 20 || !ROLE_ARN.test(role))) {
    throw badRequest(
      "1 validation error detected: Value at 'jobExecutionSettings.dataAccessRoleArn' failed to satisfy constraint: Member must satisfy regular expression pattern: ^arn:(aws|aws-cn|aws-us-gov|aws-iso-{0,1}[a-z]{0,1}):iam::[0-9]{0,63}:role/[A-Za-z0-9:_/+=,@.-]{0,1024}$",
    );
  }
  if ((allow === undefined) !== (role === undefined)) {
    throw badRequest(
      "If you include AllowDeferredExecution in your request, you must also include DataAccessRoleArn, and the reverse.",
    );
  }
  return {
    ...(allow === undefined ? {} : { AllowDeferredExecution: allow }),
    ...(role === undefined ? {} : { DataAccessRoleArn: role as string }),
  };
}

function badRequest(message: string): ServiceError {
  return new ServiceError(400, "BadRequestException", message);
}
