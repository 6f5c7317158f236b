import { UsageError } from "../usage-error";

/**
 * The `--timeout` option's seconds, in milliseconds, or `defaultSeconds` when it is not given.
 * Rejects anything but a positive number with a {@link UsageError}.
 *
 * @example
 * timeoutMsOf("900", 28_800); // 900_000
 */
export function timeoutMsOf(timeout: string | undefined, defaultSeconds: number): number {
  if (timeout === undefined) return defaultSeconds * 1000;
  const seconds = Number(timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}`);
  }
  return seconds * 1000;
}
