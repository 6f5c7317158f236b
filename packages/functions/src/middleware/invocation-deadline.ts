import { AsyncLocalStorage } from "node:async_hooks";
import type { Context } from "aws-lambda";

const deadlines = new AsyncLocalStorage<number>();

/**
 * Runs `run` with the invocation's deadline (epoch milliseconds, from the Lambda context) in
 * scope, for {@link invocationDeadline}. Each invocation has its own, even when one process serves
 * many at once (the local runtime).
 *
 * @example
 * return withInvocationDeadline(context, () => transcribe(deps, input));
 */
export function withInvocationDeadline<T>(context: Context, run: () => Promise<T>): Promise<T> {
  return deadlines.run(Date.now() + context.getRemainingTimeInMillis(), run);
}

/** The deadline of the invocation this code runs in, or `undefined` outside one. */
export function invocationDeadline(): number | undefined {
  return deadlines.getStore();
}
