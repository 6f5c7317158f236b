import type { MiddlewareObj } from "@middy/core";
import { AttemptInterrupted, EventClock } from "@voxtrail/core";
import type { Context } from "aws-lambda";
import type { ActivityRecorder } from "../kernel/activity-recorder";
import { openTempDir, removeTempDir } from "./temp-dirs";

const ATTEMPT = Symbol("voxtrail.attempt");

/** One invocation's attempt: its abort signal, its clock, its record and its temp directory once opened. */
export interface AttemptState {
  /** Aborted, with the error, when the attempt fails (its handler's error, or the deadline's). */
  readonly controller: AbortController;
  /** What the attempt's work watches: aborted with `controller`, or when the process is interrupted. */
  readonly signal: AbortSignal;
  readonly clock: EventClock;
  /** Rejects with `AttemptInterrupted` when the process is interrupted; pending otherwise. */
  readonly interrupted: Promise<never>;
  recorder?: ActivityRecorder;
  /** The attempt's temp directory, from {@link openAttemptDir} on: removed when the attempt ends. */
  tmpDir?: Promise<string>;
}

/**
 * Middy middleware that makes each invocation's attempt: before the handler, an AbortController
 * and a clock (`handler.start` marked) on the context, for {@link attemptOf}; after it, the
 * attempt's record as succeeded; on an error (the handler's, or middy's early timeout), the
 * signal aborted first, so late work stops, then the record as failed (an error writing it, such
 * as a full disk, becomes the invocation's error, still made safe by the middlewares after this
 * one). An invocation whose handler opened no record writes none. Either way, the attempt's temp
 * directory, if it opened one, is removed with everything in it while the record is written (the
 * record needs nothing in it), and the invocation ends once both are done.
 *
 * With `interrupt` (the process's, aborted on SIGINT or SIGTERM), the attempt's signal aborts with
 * it too, and its `interrupted` rejects with `AttemptInterrupted` (the kernel races the handler
 * against it, so the attempt fails and is recorded at once); once `interrupt` has aborted, an
 * invocation fails with `AttemptInterrupted` before it begins, and leaves nothing.
 *
 * The signal is the invocation's own: middy's `{ signal }` is one AbortController shared by every
 * invocation in the process, and the local runtime runs many at once, where one timed-out job
 * would abort the others' streams.
 *
 * @example
 * middy().use(stageAttempt("Transcribe", interrupt)).handler(async (event, context) => attemptOf(context).clock.mark("engine.start"));
 */
export function stageAttempt(
  stage: string,
  interrupt?: AbortSignal,
): MiddlewareObj<unknown, unknown, Error, Context> {
  const interruption = () => new AttemptInterrupted(`${stage} was interrupted (SIGINT or SIGTERM)`);
  return {
    before: async (request) => {
      if (interrupt?.aborted) throw interruption();
      const controller = new AbortController();
      const signal = interrupt ? AbortSignal.any([controller.signal, interrupt]) : controller.signal;
      const interrupted = new Promise<never>((_, reject) => {
        if (!interrupt) return;
        signal.addEventListener("abort", () => interrupt.aborted && reject(interruption()), { once: true });
      });
      const state: AttemptState = { controller, signal, clock: new EventClock(), interrupted };
      state.clock.mark("handler.start");
      request.context = Object.assign(Object.create(request.context) as Context, { [ATTEMPT]: state });
    },
    after: async (request) => {
      const state = attemptOf(request.context);
      // The directory's removal needs nothing of the record's write: both at once.
      const removed = removeAttemptDir(state);
      try {
        await state.recorder?.record("succeeded");
      } finally {
        await removed;
      }
    },
    onError: async (request) => {
      const state = (request.context as Partial<Record<typeof ATTEMPT, AttemptState>>)[ATTEMPT];
      if (!state) return;
      state.controller.abort(request.error);
      const removed = removeAttemptDir(state);
      try {
        await state.recorder?.record("failed", request.error);
      } catch (error) {
        // The record could not be written (the disk is full, ...): that is the attempt's error now.
        // Thrown from here, middy would skip the middlewares after this one (safeErrors among
        // them) and the error would leave as it is, path and all, instead of by its meaning.
        request.error = error as Error;
      } finally {
        await removed;
      }
    },
  };
}

/** The attempt {@link stageAttempt} made for the invocation whose context this is. */
export function attemptOf(context: Context): AttemptState {
  const state = (context as Partial<Record<typeof ATTEMPT, AttemptState>>)[ATTEMPT];
  if (!state)
    throw new Error("no stage attempt on this context: the handler was built without stageAttempt()");
  return state;
}

/**
 * Opens the attempt's temp directory (`<label>-<random>` under the process's temp root), which
 * {@link stageAttempt} removes when the attempt ends. Refused (the signal's reason) once the
 * attempt's signal has aborted: the attempt has ended, or is ending, and nothing would remove it.
 */
export function openAttemptDir(state: AttemptState, label: string): Promise<string> {
  state.signal.throwIfAborted();
  state.tmpDir = openTempDir(label);
  return state.tmpDir;
}

async function removeAttemptDir(state: AttemptState): Promise<void> {
  const dir = await state.tmpDir?.catch(() => undefined);
  if (dir !== undefined) await removeTempDir(dir);
}
