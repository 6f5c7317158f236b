import { DescribeExecutionCommand, type ExecutionStatus, type SFNClient } from "@aws-sdk/client-sfn";
import { mapLimit } from "@voxtrail/core";
import type { EventExecution } from "./execution-finder";

/** An execution that ran a job, with its status when last described. */
export interface ExecutionState {
  executionArn: string;
  status: ExecutionStatus | "UNKNOWN";
}

/** How many executions are described at once. */
const DESCRIBE_CONCURRENCY = 8;

/**
 * Whether an execution's status says it may still write (running, or waiting to be redriven).
 *
 * @example
 * isRunning({ status: "PENDING_REDRIVE" }); // true
 */
export function isRunning({ status }: { status: string }): boolean {
  return status === "RUNNING" || status === "PENDING_REDRIVE";
}

/**
 * Each execution's current status (DescribeExecution), in order.
 *
 * @example
 * const statuses = await statusesOf(finder.executionsFor(source), sfn); // [{ executionArn, status: "RUNNING" }]
 */
export async function statusesOf(executions: EventExecution[], sfn: SFNClient): Promise<ExecutionState[]> {
  return mapLimit(executions, DESCRIBE_CONCURRENCY, async ({ executionArn }) => {
    const { status } = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return { executionArn, status: status ?? "UNKNOWN" };
  });
}
