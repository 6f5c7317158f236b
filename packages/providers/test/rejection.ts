import { expect } from "vitest";

/**
 * The error `promise` rejects with; the calling test fails if it resolves, or rejects with
 * anything but an `Error`.
 *
 * @example
 * expect((await failure(reasoner.reason(transcript))).name).toBe("ReasoningThrottled");
 */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}
