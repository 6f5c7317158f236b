import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { RunningExecutions, type TaskTokens } from "@voxtrail/local/state-machine";

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

/** An answer of the stand-in: its HTTP status, body, and error type for an error. */
type Answer = { status: number; payload: unknown; errorType?: string };

/** A Step Functions error, as the JSON 1.0 protocol carries it. */
function error(status: number, type: string, message: string): Answer {
  return { status, payload: { __type: type, message }, errorType: type };
}

/**
 * A loopback server speaking Step Functions' JSON 1.0 protocol for the calls the functions make:
 * `DescribeExecution` (Ingest asks whether a claimed job's execution still runs), answered from
 * the rehearsal's own executions, an unknown ARN `ExecutionDoesNotExist` as AWS answers; and
 * `SendTaskSuccess` (the Transcribe function resumes a workflow waiting for its job), handed to
 * the tokens the rehearsal's state machines wait on, a token no task waits on `TaskTimedOut`.
 *
 * @example
 * const stepFunctions = await startStepFunctionsStandIn(executions, tokens);
 * stepFunctions.url; // "http://127.0.0.1:..."
 */
export async function startStepFunctionsStandIn(executions: RehearsalExecutions, tokens: TaskTokens) {
  const operations: Record<string, (body: Record<string, unknown>) => Promise<Answer>> = {
    "AWSStepFunctions.DescribeExecution": async (body) => {
      const arn = String(body.executionArn);
      const status = executions.status(arn);
      if (!status) return error(400, "ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
      const [, , , region, account, , name] = arn.split(":");
      return {
        status: 200,
        payload: {
          executionArn: arn,
          stateMachineArn: `arn:aws:states:${region}:${account}:stateMachine:${name}`,
          status,
          startDate: Date.now() / 1000,
        },
      };
    },
    "AWSStepFunctions.SendTaskSuccess": async (body) => {
      const output = JSON.parse(String(body.output ?? "{}")) as Record<string, unknown>;
      return (await tokens.resume(String(body.taskToken), output)) === "resumed"
        ? { status: 200, payload: {} }
        : error(400, "TaskTimedOut", "Task Timed Out: the task is not waiting on this token");
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const target = String(request.headers["x-amz-target"] ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      const operation = operations[target];
      const answering = operation
        ? operation(body)
        : Promise.resolve(error(400, "UnknownOperationException", `${target} is not served here`));
      void answering.then(({ status, payload, errorType }) => {
        response.writeHead(status, {
          "content-type": "application/x-amz-json-1.0",
          ...(errorType ? { "x-amzn-errortype": errorType } : {}),
        });
        response.end(JSON.stringify(payload));
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
