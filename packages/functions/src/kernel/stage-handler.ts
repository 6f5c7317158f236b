import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import middy from "@middy/core";
import { StageTimedOut } from "@voxtrail/core";
import { collectSdkCalls } from "@voxtrail/providers";
import type { Context } from "aws-lambda";
import { enforceBoundaries } from "../lineage/boundary-check";
import { parseInput } from "../middleware/parse-input";
import { safeErrors } from "../middleware/safe-errors";
import { type AttemptState, attemptOf, openAttemptDir, stageAttempt } from "../middleware/stage-attempt";
import { inAttemptDir } from "../middleware/temp-dirs";
import { abortableStore } from "./abortable-store";
import { type Activity, ActivityRecorder } from "./activity-recorder";
import type { Invocation, KernelDependencies, StageDefinition } from "./stage-definition";

export { openTempDir, removeTempDir, tempRoot } from "../middleware/temp-dirs";

/** A stage's Lambda handler: `(event, context) => result`, as Lambda and the local runtime call it. */
export type StageHandler<O> = (event: unknown, context: Context) => Promise<O>;

/**
 * How long before the invocation's deadline an attempt still running is given up: time to write
 * its record before Lambda stops the function (whose timeout is a margin below its Task state's,
 * so this record and `StageTimedOut` come before `States.Timeout`), or, locally, before the same
 * function deadline the local runtime gives the handler. Middy's early timeout fires then.
 */
export const RECORD_BEFORE_DEADLINE_MS = 500;

/**
 * The kernel: builds a stage's Lambda handler from its definition, as one middy chain. Powertools
 * Logger with the Lambda context (and `jobId` as a key once the stage has opened); Powertools'
 * `logMetrics` flushing what the attempt added, on success and on error, when `deps.metrics` is
 * set; errors made safe to cross into Step Functions; the input parsed; the attempt's activity
 * record, opened after the stage's `open` and written once, succeeded or failed; the boundary
 * check before `run`; the AWS SDK calls `run` makes, collected into the record; and the deadline
 * from middy's early timeout: {@link RECORD_BEFORE_DEADLINE_MS} before the invocation's end the
 * attempt fails with `StageTimedOut`, its signal aborts (a provider stream stops) and its store
 * refuses every later read and write. When `deps.interrupt` aborts (the local runtime's, on SIGINT
 * or SIGTERM), every attempt in flight fails the same way at once, with `AttemptInterrupted`, and
 * no later invocation begins.
 *
 * Each attempt has its own temp directory (`tmpDir`, under {@link tempRoot}:
 * `<jobId>-<recordAs>-<random>`), made while its record (when it has one) is opened, and removed
 * with its content when the attempt ends, whether it succeeds, fails, times out or is
 * interrupted; every temp file the attempt makes goes there (the reply spool finds it through the
 * attempt's async context).
 *
 * @example
 * const handler = stageHandler(transcribeStage, deps);
 * await handler(jobState, context);
 */
export function stageHandler<D extends KernelDependencies, I, O, C>(
  definition: StageDefinition<D, I, O, C>,
  deps: D,
): StageHandler<O> {
  const chain = middy<unknown, O, Error, Context>({
    timeoutEarlyInMillis: RECORD_BEFORE_DEADLINE_MS,
    timeoutEarlyResponse: () => {
      throw new StageTimedOut(`${definition.name} ran past its invocation's time limit`);
    },
  }).use(injectLambdaContext(deps.logger, { resetKeys: true }));
  if (deps.metrics) chain.use(logMetrics(deps.metrics));
  return chain
    .use(safeErrors(deps.logger, definition.name))
    .use(parseInput(definition.name, definition.input))
    .use(stageAttempt(definition.name, deps.interrupt))
    .handler((event, context) => {
      const state = attemptOf(context);
      return Promise.race([runStage(definition, deps, event as I, state), state.interrupted]);
    }) as unknown as StageHandler<O>;
}

async function runStage<D extends KernelDependencies, I, O, C>(
  definition: StageDefinition<D, I, O, C>,
  deps: D,
  input: I,
  state: AttemptState,
): Promise<O> {
  const { signal, clock } = state;
  const invocation: Invocation<D> = {
    deps: { ...deps, store: abortableStore(deps.store, signal) },
    signal,
    clock,
  };
  const opening = await definition.open(input, invocation);
  if (opening.jobId !== undefined) deps.logger.appendKeys({ jobId: opening.jobId, ...opening.logKeys });
  if ("done" in opening) return opening.done;
  const recordAs = opening.recordAs ?? definition.name;
  if (definition.recorded === false) {
    const tmpDir = await openAttemptDir(state, `${opening.jobId}-${recordAs}`);
    return inAttemptDir(tmpDir, () =>
      definition.run(input, { ...invocation, activity: detachedActivity(), tmpDir }, opening.carry),
    );
  }
  // The temp directory is made while the record is opened: neither waits on the other.
  const tmpDirOpened = openAttemptDir(state, `${opening.jobId}-${recordAs}`);
  tmpDirOpened.catch(() => undefined);
  const recorder = await ActivityRecorder.open({
    store: deps.store,
    jobId: opening.jobId,
    stage: definition.name,
    recordAs,
    follows: opening.follows ?? definition.follows ?? [],
    compute: deps.compute,
    inputs: opening.inputs,
    now: deps.now ?? (() => new Date()),
    jobsInFlight: deps.jobsInFlight,
    metrics: deps.metrics,
    endsJob: definition.endsJob,
    startedAt: opening.startedAt,
    failuresOnly: definition.recorded === "failures",
  });
  // Ended (timed out, interrupted) while its record was opened: it never began, and writes nothing.
  signal.throwIfAborted();
  state.recorder = recorder;
  const tmpDir = await tmpDirOpened;
  const { activity } = recorder;
  return inAttemptDir(tmpDir, () =>
    collectSdkCalls(recorder.sdkCalls, async () => {
      enforceBoundaries(deps, activity, definition.name, definition.flows(invocation.deps, input));
      return definition.run(input, { ...invocation, activity, tmpDir }, opening.carry);
    }),
  );
}

/** The activity of a stage that writes no record: filled like any other, then dropped. */
function detachedActivity(): Activity {
  return { inputs: [], outputs: [], processors: [], timings: [], measures: {} };
}
