import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { RunningExecutions } from "@voxtrail/local/state-machine";

/** How an execution the rehearsal ran ended, or that it still runs. */
export type ExecutionStatus = "RUNNING" | "SUCCEEDED" | "FAILED" | "ABORTED";

/**
 * The executions the rehearsal's state machines run, with ARNs in the stage's account and region
 * (`arn:aws:states:<region>:<account>:execution:<name>:<id>`), as Step Functions names them, so
 * a role scoped to one state machine's executions is checked against real-looking ARNs.
 *
 * @example
 * const executions = new RehearsalExecutions({ account, region });
 * new LocalStateMachine(name, definition, handlers, executions);
 */
export class RehearsalExecutions extends RunningExecutions {
  readonly #status = new Map<string, ExecutionStatus>();

  constructor(private readonly scope: { account: string; region: string }) {
    super();
  }

  override start(machineName: string): string {
    const arn = `arn:aws:states:${this.scope.region}:${this.scope.account}:execution:${machineName}:${randomUUID()}`;
    this.#status.set(arn, "RUNNING");
    return arn;
  }

  override end(executionArn: string): void {
    if (this.#status.get(executionArn) === "RUNNING") this.#status.set(executionArn, "SUCCEEDED");
  }

  /** Records how an execution ended (the state machine's result). */
  finished(executionArn: string, status: Exclude<ExecutionStatus, "RUNNING">): void {
    this.#status.set(executionArn, status);
  }

  override async isRunning(executionArn: string): Promise<boolean> {
    return this.#status.get(executionArn) === "RUNNING";
  }

  /** The executions of the state machine named `machineName` that still run. */
  running(machineName: string): string[] {
    return [...this.#status]
      .filter(([arn, status]) => status === "RUNNING" && arn.split(":")[6] === machineName)
      .map(([arn]) => arn);
  }

  /** The execution's status, or undefined when the rehearsal never ran it. */
  status(executionArn: string): ExecutionStatus | undefined {
    return this.#status.get(executionArn);
  }
}

/**
 * A loopback server speaking Step Functions' JSON 1.0 protocol for the one call the functions make,
 * `DescribeExecution` (Ingest asks whether a claimed job's execution still runs), answered from
 * the rehearsal's own executions; an unknown ARN is `ExecutionDoesNotExist`, as AWS answers.
 *
 * @example
 * const stepFunctions = await startStepFunctionsStandIn(executions);
 * stepFunctions.url; // "http://127.0.0.1:..."
 */
export async function startStepFunctionsStandIn(executions: RehearsalExecutions) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const target = String(request.headers["x-amz-target"] ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { executionArn?: string };
      const send = (status: number, payload: unknown, errorType?: string) => {
        response.writeHead(status, {
          "content-type": "application/x-amz-json-1.0",
          ...(errorType ? { "x-amzn-errortype": errorType } : {}),
        });
        response.end(JSON.stringify(payload));
      };
      if (target !== "AWSStepFunctions.DescribeExecution") {
        send(
          400,
          { __type: "UnknownOperationException", message: `${target} is not served here` },
          "UnknownOperationException",
        );
        return;
      }
      const arn = String(body.executionArn);
      const status = executions.status(arn);
      if (!status) {
        send(
          400,
          { __type: "ExecutionDoesNotExist", message: `Execution Does Not Exist: '${arn}'` },
          "ExecutionDoesNotExist",
        );
        return;
      }
      const [, , , region, account, , name] = arn.split(":");
      send(200, {
        executionArn: arn,
        stateMachineArn: `arn:aws:states:${region}:${account}:stateMachine:${name}`,
        status,
        startDate: Date.now() / 1000,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
