import "./promise-with-resolvers";
import { randomUUID } from "node:crypto";
import type { StageHandler } from "@voxtrail/functions";
import type { AslDefinition } from "@voxtrail/workflow";
import type { Context } from "aws-lambda";
import { ExecutionError, StateMachine } from "aws-local-stepfunctions";

/** A stage entered or left, as the local engine's event log reports it. */
export interface StateTransition {
  type: "entered" | "exited" | "failed" | "retried" | "caught";
  state: string;
  timestamp: number;
}

/** How an execution ended. */
export type ExecutionResult =
  | { status: "SUCCEEDED"; executionArn: string; output: unknown }
  | { status: "FAILED"; executionArn: string; error: string; cause: string };

/** Options of one execution. */
export interface StartOptions {
  /** Called for every state transition, e.g. to show progress. */
  onTransition?: (transition: StateTransition) => void;
  /** Milliseconds to wait before each retry, instead of the definition's backoff (tests). */
  retryIntervalMs?: number;
}

/**
 * Runs an ASL definition on this machine with aws-local-stepfunctions, calling, for every Task
 * state, the handler of the Lambda function its `Resource` names, with a Lambda-like context.
 * Errors cross the boundary as Lambda reports them: `Error` is the error's name, `Cause` the JSON
 * `{errorType, errorMessage}`.
 *
 * The definition is validated once, at construction; the machine is reused for every execution.
 *
 * @example
 * const machine = new LocalStateMachine("voxtrail-voicemail", definition, handlersByArn);
 * const result = await machine.start(event);
 */
export class LocalStateMachine {
  readonly #machine: StateMachine;
  readonly #taskHandlers: Record<string, (input: unknown) => Promise<unknown>>;

  constructor(
    readonly name: string,
    definition: AslDefinition,
    handlersByArn: Record<string, StageHandler<unknown>>,
  ) {
    this.#machine = new StateMachine(definition as never, {
      validationOptions: { checkArn: true, checkPaths: true },
    });
    this.#taskHandlers = {};
    for (const [stateName, state] of Object.entries(definition.States)) {
      if (state.Type !== "Task") continue;
      const arn = String(state.Resource);
      const handler = handlersByArn[arn];
      if (!handler) throw new Error(`no local handler for ${arn} (Task state ${stateName})`);
      this.#taskHandlers[stateName] = (input) =>
        invokeLikeLambda(handler, arn, Number(state.TimeoutSeconds ?? 60), input);
    }
  }

  /** Starts one execution and resolves when it ends, successfully or not. */
  async start(input: unknown, options: StartOptions = {}): Promise<ExecutionResult> {
    const executionArn = `arn:aws:states:local:000000000000:execution:${this.name}:${randomUUID()}`;
    const retryOverrides =
      options.retryIntervalMs === undefined
        ? undefined
        : Object.fromEntries(
            Object.keys(this.#taskHandlers).map((state) => [state, options.retryIntervalMs as number]),
          );
    const execution = this.#machine.run(input as never, {
      context: { Execution: { Id: executionArn, Name: executionArn.split(":").at(-1) } } as never,
      overrides: {
        taskResourceLocalHandlers: this.#taskHandlers as never,
        ...(retryOverrides ? { retryIntervalOverrides: retryOverrides } : {}),
      },
    });
    const forwarding = forwardTransitions(execution.eventLogs, options.onTransition);
    try {
      const output = await execution.result;
      return { status: "SUCCEEDED", executionArn, output };
    } catch (error) {
      if (!(error instanceof ExecutionError)) throw error;
      const failure = error.cause as { name?: string; message?: string } | undefined;
      return {
        status: "FAILED",
        executionArn,
        error: failure?.name ?? "States.Runtime",
        cause: failure?.message ?? "",
      };
    } finally {
      await forwarding;
    }
  }
}

async function forwardTransitions(
  events: AsyncGenerator<{ type: string; timestamp: number; state?: { name: string } }>,
  onTransition: StartOptions["onTransition"],
): Promise<void> {
  const types: Record<string, StateTransition["type"]> = {
    StateEntered: "entered",
    StateExited: "exited",
    StateFailed: "failed",
    StateRetried: "retried",
    StateCaught: "caught",
  };
  for await (const event of events) {
    const type = types[event.type];
    if (type && event.state) onTransition?.({ type, state: event.state.name, timestamp: event.timestamp });
  }
}

async function invokeLikeLambda(
  handler: StageHandler<unknown>,
  functionArn: string,
  timeoutSeconds: number,
  input: unknown,
): Promise<unknown> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const functionName = functionArn.split(":").at(-1) ?? functionArn;
  const context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: functionArn,
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  } satisfies Context;
  try {
    return await handler(structuredClone(input), context);
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    const message = error instanceof Error ? error.message : String(error);
    const reported = new Error(JSON.stringify({ errorType: name, errorMessage: message }));
    reported.name = name;
    throw reported;
  }
}
