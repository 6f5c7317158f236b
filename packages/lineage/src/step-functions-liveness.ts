import type { SFNClient } from "@aws-sdk/client-sfn";
import type { ExecutionLiveness } from "@voxtrail/core";

/**
 * Whether a Step Functions execution still runs, from `DescribeExecution`: a job claimed by an
 * execution that has ended without a report (timed out, aborted) may be claimed again.
 *
 * @example
 * const liveness = new StepFunctionsLiveness(new SFNClient({}));
 * await liveness.isRunning("arn:aws:states:eu-west-1:123456789012:execution:voicemail:abc"); // false once ended
 */
export class StepFunctionsLiveness implements ExecutionLiveness {
  constructor(private readonly client: SFNClient) {}

  async isRunning(executionId: string): Promise<boolean> {
    // The SDK's commands load on the first call: a Lambda function importing this class does not evaluate them.
    const { DescribeExecutionCommand, ExecutionDoesNotExist } = await import("@aws-sdk/client-sfn");
    try {
      const execution = await this.client.send(new DescribeExecutionCommand({ executionArn: executionId }));
      return execution.status === "RUNNING" || execution.status === "PENDING_REDRIVE";
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return false;
      throw error;
    }
  }
}
