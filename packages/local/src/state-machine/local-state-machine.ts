import "./promise-with-resolvers";
import { randomUUID } from "node:crypto";
import type { StageHandler } from "@voxtrail/functions";
import { type AslDefinition, functionTimeoutSeconds, WAIT_FOR_TASK_TOKEN_LAMBDA } from "@voxtrail/workflow";
import type { Context } from "aws-lambda";
import { ExecutionAbortedError, ExecutionError, StateMachine } from "aws-local-stepfunctions";
import { RunningExecutions } from "./running-executions";
import { TaskTokens } from "./task-tokens";

/** A stage entered or left, as the local engine's event log reports it. */
export interface StateTransition {
  type: "entered" | "exited" | "failed" | "retried" | "caught";
  state: string;
  timestamp: number;
}

/**
 * One entry of the engine's event log, as it was emitted: the state (or the execution) with the
 * payload it received and, once done, produced; a failure's error and cause.
 */
export interface ExecutionEvent {
  type: string;
  timestamp: number;
  /** The state, with its input and (on exit) its output. */
  state?: { name: string; input: unknown; output?: unknown };
  /** The execution's input (`ExecutionStarted`). */
  input?: unknown;
  /** The execution's output (`ExecutionSucceeded`). */
  output?: unknown;
  Error?: string;
  Cause?: unknown;
}

/** How an execution ended: `ABORTED` when it was stopped ({@link StartOptions.signal}). */
export type ExecutionResult =
  | { status: "SUCCEEDED"; executionArn: string; output: unknown }
  | { status: "FAILED"; executionArn: string; error: string; cause: string }
  | { status: "ABORTED"; executionArn: string };

/** Options of one execution. */
export interface StartOptions {
  /** Called for every state transition, e.g. to show progress. */
  onTransition?: (transition: StateTransition) => void;
  /** Milliseconds to wait before each retry, instead of the definition's backoff (tests). */
  retryIntervalMs?: number | undefined;
  /**
   * Milliseconds each `.waitForTaskToken` Task waits for its token, instead of its `TimeoutSeconds`
   * (its safety net): when it passes, the Task fails with `States.Timeout`, as on AWS.
   */
  callbackWaitMs?: number;
  /** Called for every event of the engine's log, payloads included, e.g. to audit state payloads. */
  onEvent?: (event: ExecutionEvent) => void;
  /** Stops the execution when aborted, as StopExecution does: no further state runs. */
  signal?: AbortSignal;
}

/**
 * Runs an ASL definition on this machine with aws-local-stepfunctions, calling, for every Task
 * state, the handler of the Lambda function its `Resource` names, with a Lambda-like context
 * (its deadline: the state's `TimeoutSeconds` less FUNCTION_TIMEOUT_MARGIN_SECONDS, as deployed).
 * Errors cross the boundary as Lambda reports them: `Error` is the error's name, `Cause` the JSON
 * `{errorType, errorMessage}`.
 *
 * A `lambda:invoke.waitForTaskToken` Task invokes the handler of its `FunctionName` with its
 * `Payload` (its deadline: the function's, from the state that invokes it directly), then waits
 * for the token `$$.Task.Token` gave it until `tokens` resumes it, or its `TimeoutSeconds` pass
 * (`States.Timeout`): the callback pattern, which aws-local-stepfunctions lacks. Each evaluation
 * of `$$.Task.Token` mints a fresh token, as each entry of a Task gets its own on AWS.
 *
 * The definition is validated at construction, once per process (see {@link validatedStateMachine});
 * the machine is reused for every execution.
 *
 * @example
 * const machine = new LocalStateMachine("voxtrail-voicemail", definition, handlersByArn);
 * const result = await machine.start(event);
 */
export class LocalStateMachine {
  readonly #machine: StateMachine;
  readonly #taskHandlers: Record<string, (input: unknown, options: StartOptions) => Promise<unknown>>;

  constructor(
    readonly name: string,
    definition: AslDefinition,
    handlersByArn: Record<string, StageHandler<unknown>>,
    /** The table its executions are entered in while they run (shared with duplicate-job claims). */
    private readonly running: RunningExecutions = new RunningExecutions(),
    /** The tokens its callback Tasks wait on (shared with the functions that resume them). */
    private readonly tokens: TaskTokens = new TaskTokens(),
  ) {
    this.#machine = validatedStateMachine(definition);
    this.#taskHandlers = {};
    const tasks = taskStates(definition.States);
    const functionTimeouts = directFunctionTimeouts(tasks);
    for (const [stateName, state] of tasks) {
      const arn = String(state.Resource);
      if (arn === WAIT_FOR_TASK_TOKEN_LAMBDA) {
        this.#taskHandlers[stateName] = this.#callbackTask(stateName, state, handlersByArn, functionTimeouts);
        continue;
      }
      const handler = handlersByArn[arn];
      if (!handler) throw new Error(`no local handler for ${arn} (Task state ${stateName})`);
      // The function's timeout as the stacks deploy it: the state's, less the margin.
      const timeoutSeconds = functionTimeoutSeconds(Number(state.TimeoutSeconds ?? 60));
      this.#taskHandlers[stateName] = (input) => invokeLikeLambda(handler, arn, timeoutSeconds, input);
    }
  }

  /**
   * The handler of a `lambda:invoke.waitForTaskToken` Task: begins waiting on the token in its
   * payload, invokes the function with the payload, and resolves with what resumes the token.
   */
  #callbackTask(
    stateName: string,
    state: Record<string, unknown>,
    handlersByArn: Record<string, StageHandler<unknown>>,
    functionTimeouts: ReadonlyMap<string, number>,
  ): (input: unknown, options: StartOptions) => Promise<unknown> {
    const timeoutMs = Number(state.TimeoutSeconds ?? 99_999_999) * 1000;
    return async (input, options: StartOptions) => {
      const { FunctionName: arn, Payload: payload } = input as { FunctionName: string; Payload: unknown };
      const handler = handlersByArn[arn];
      if (!handler) throw new Error(`no local handler for ${arn} (Task state ${stateName})`);
      const token = findValue(payload, (value) => this.tokens.isToken(value));
      if (token === undefined)
        throw new Error(`Task state ${stateName} passes no $$.Task.Token in its Payload`);
      // The wait's time runs from the Task's start, the invocation's included, as on AWS; its
      // timeout is handled here and rethrown below, after the invocation.
      const waiting = this.tokens.wait(token, options.callbackWaitMs ?? timeoutMs);
      waiting.catch(() => undefined);
      try {
        await invokeLikeLambda(
          handler,
          arn,
          functionTimeouts.get(arn) ?? functionTimeoutSeconds(60),
          payload,
        );
      } catch (error) {
        // The function failed: the Task fails with its error, and nothing waits on the token.
        this.tokens.release(token);
        throw error;
      }
      return waiting;
    };
  }

  /** Starts one execution and resolves when it ends, successfully or not. */
  async start(input: unknown, options: StartOptions = {}): Promise<ExecutionResult> {
    const executionArn = this.running.start(this.name);
    const retryOverrides =
      options.retryIntervalMs === undefined
        ? undefined
        : Object.fromEntries(
            Object.keys(this.#taskHandlers).map((state) => [state, options.retryIntervalMs as number]),
          );
    const taskHandlers = Object.fromEntries(
      Object.entries(this.#taskHandlers).map(([state, handler]) => [
        state,
        (input: unknown) => handler(input, options),
      ]),
    );
    const tokens = this.tokens;
    const execution = this.#machine.run(input as never, {
      context: {
        Execution: { Id: executionArn, Name: executionArn.split(":").at(-1) },
        Task: {
          get Token() {
            return tokens.mint();
          },
        },
      } as never,
      overrides: {
        taskResourceLocalHandlers: taskHandlers as never,
        ...(retryOverrides ? { retryIntervalOverrides: retryOverrides } : {}),
      },
    });
    const forwarding = forwardEvents(execution.eventLogs, options);
    const stop = () => execution.abort();
    options.signal?.addEventListener("abort", stop, { once: true });
    try {
      if (options.signal?.aborted) execution.abort();
      const output = await execution.result;
      return { status: "SUCCEEDED", executionArn, output };
    } catch (error) {
      if (error instanceof ExecutionAbortedError) return { status: "ABORTED", executionArn };
      if (!(error instanceof ExecutionError)) throw error;
      const failure = error.cause as { name?: string; message?: string } | undefined;
      return {
        status: "FAILED",
        executionArn,
        error: failure?.name ?? "States.Runtime",
        cause: failure?.message ?? "",
      };
    } finally {
      options.signal?.removeEventListener("abort", stop);
      await forwarding;
      this.running.end(executionArn);
    }
  }
}

async function forwardEvents(
  events: AsyncGenerator<ExecutionEvent>,
  { onTransition, onEvent }: StartOptions,
): Promise<void> {
  const types: Record<string, StateTransition["type"]> = {
    StateEntered: "entered",
    StateExited: "exited",
    StateFailed: "failed",
    StateRetried: "retried",
    StateCaught: "caught",
  };
  for await (const event of events) {
    onEvent?.(event);
    const type = types[event.type];
    if (type && event.state) onTransition?.({ type, state: event.state.name, timestamp: event.timestamp });
  }
}

/**
 * Calls `handler` the way Lambda would, with a context whose deadline is `timeoutSeconds` away: the
 * function's timeout as deployed, its Task state's `TimeoutSeconds` less
 * FUNCTION_TIMEOUT_MARGIN_SECONDS (`functionTimeoutSeconds`, packages/workflow/src/stages.ts).
 * So locally, as on AWS, a stage that runs too long fails with its own deadline's error
 * (`StageTimedOut`, which the attempt records), not with the state's `States.Timeout`, which
 * stays a backstop. Errors are reported as Lambda reports them.
 */
export async function invokeLikeLambda(
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

/**
 * The timeout of each function a Task state invokes directly, as the stacks deploy it: the state's
 * `TimeoutSeconds` less the margin (`functionTimeoutSeconds`).
 */
function directFunctionTimeouts(tasks: Array<[string, Record<string, unknown>]>): Map<string, number> {
  return new Map(
    tasks
      .filter(([, state]) => state.Resource !== WAIT_FOR_TASK_TOKEN_LAMBDA)
      .map(([, state]) => [
        String(state.Resource),
        functionTimeoutSeconds(Number(state.TimeoutSeconds ?? 60)),
      ]),
  );
}

/** The first value in `tree` (an object, an array, or a value) that `test` accepts. */
function findValue(tree: unknown, test: (value: unknown) => boolean): string | undefined {
  if (test(tree)) return tree as string;
  if (typeof tree !== "object" || tree === null) return undefined;
  for (const value of Object.values(tree)) {
    const found = findValue(value, test);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Every Task state by name, including those inside Map item processors and Parallel branches:
 * the engine looks local handlers up by state name at any depth.
 */
function taskStates(states: AslDefinition["States"]): Array<[string, Record<string, unknown>]> {
  return Object.entries(states).flatMap(([name, state]): Array<[string, Record<string, unknown>]> => {
    if (state.Type === "Task") return [[name, state]];
    const nested = [
      state.ItemProcessor ?? state.Iterator,
      ...((state.Branches as unknown[] | undefined) ?? []),
    ] as Array<{ States?: AslDefinition["States"] } | undefined>;
    return nested.flatMap((machine) => (machine?.States ? taskStates(machine.States) : []));
  });
}

/** The definitions (as JSON) this process has validated already. */
const VALIDATED_DEFINITIONS = new Set<string>();

/**
 * The engine's state machine for `definition`, validated (ARNs and paths checked) unless this
 * process has validated the very same definition before: the validator compiles its schemas on
 * every call, about half a second, which a process that starts many runtimes (a property test, a
 * load run) would otherwise pay each time for the same answer. An invalid definition throws and
 * is never remembered, so it throws again next time.
 */
function validatedStateMachine(definition: AslDefinition): StateMachine {
  const json = JSON.stringify(definition);
  const validated = VALIDATED_DEFINITIONS.has(json);
  const machine = new StateMachine(definition as never, {
    validationOptions: validated ? { noValidate: true } : { checkArn: true, checkPaths: true },
  });
  VALIDATED_DEFINITIONS.add(json);
  return machine;
}
