import { SendTaskSuccessCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { WorkflowCallback } from "@voxtrail/core";

/**
 * What Step Functions answers `SendTaskSuccess` with when no task waits on the token any more:
 * its wait timed out or its execution ended (`TaskTimedOut`), the token is unknown
 * (`TaskDoesNotExist`) or malformed (`InvalidToken`) (SendTaskSuccess API reference, Errors).
 */
const GONE = new Set(["TaskTimedOut", "TaskDoesNotExist", "InvalidToken"]);

/**
 * {@link WorkflowCallback} on AWS Step Functions: `SendTaskSuccess` with the output as JSON. A
 * task that no longer waits is `gone`, not an error: the workflow has moved on (a second event for
 * the job, or its wait's safety net came first). Other errors are thrown as the SDK raised them.
 *
 * @example
 * const callback = new StepFunctionsCallback(new SFNClient({}));
 * await callback.resume(taskToken, { status: "COMPLETED" }); // "resumed"
 */
export class StepFunctionsCallback implements WorkflowCallback {
  constructor(private readonly client: SFNClient) {}

  async resume(taskToken: string, output: Record<string, unknown>): Promise<"resumed" | "gone"> {
    try {
      await this.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
      return "resumed";
    } catch (error) {
      if (GONE.has((error as { name?: unknown }).name as string)) return "gone";
      throw error;
    }
  }
}
