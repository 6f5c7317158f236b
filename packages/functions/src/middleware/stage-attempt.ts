import type { MiddlewareObj } from "@middy/core";
import { EventClock } from "@voxtrail/core";
import type { Context } from "aws-lambda";
import type { ActivityRecorder } from "../kernel/activity-recorder";

const ATTEMPT = Symbol("voxtrail.attempt");

/** One invocation's attempt: its abort signal, its clock, and its record once opened. */
export interface AttemptState {
  readonly controller: AbortController;
  readonly clock: EventClock;
  recorder?: ActivityRecorder;
}

/**
 * Middy middleware that makes each invocation's attempt: before the handler, an AbortController
 * and a clock (`handler.start` marked) on the context, for {@link attemptOf}; after it, the
 * attempt's record as succeeded; on an error (the handler's, or middy's early timeout), the
 * signal aborted first, so late work stops, then the record as failed. An invocation whose
 * handler opened no record writes none.
 *
 * The signal is the invocation's own: middy's `{ signal }` is one AbortController shared by every
 * invocation in the process, and the local runtime runs many at once, where one timed-out job
 * would abort the others' streams.
 *
 * @example
 * middy().use(stageAttempt()).handler(async (event, context) => attemptOf(context).clock.mark("engine.start"));
 */
export function stageAttempt(): MiddlewareObj<unknown, unknown, Error, Context> {
  return {
    before: async (request) => {
      const state: AttemptState = { controller: new AbortController(), clock: new EventClock() };
      state.clock.mark("handler.start");
      request.context = Object.assign(Object.create(request.context) as Context, { [ATTEMPT]: state });
    },
    after: async (request) => {
      await attemptOf(request.context).recorder?.record("succeeded");
    },
    onError: async (request) => {
      const state = (request.context as Partial<Record<typeof ATTEMPT, AttemptState>>)[ATTEMPT];
      if (!state) return;
      state.controller.abort(request.error);
      await state.recorder?.record("failed", request.error);
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
