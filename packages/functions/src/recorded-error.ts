import type { RecordedError } from "@voxtrail/core";
import { systemErrorMeaning, VoxtrailError } from "@voxtrail/core";

/**
 * The name and message of an error as it may be recorded. Our named errors carry messages that
 * are safe by construction; a failed system call is recorded by its meaning (`DiskFull`,
 * `PermissionDenied`, ...: what happened and what to do, without the path Node puts in its
 * message); any other error is reduced to its name, because a library's message may quote the
 * data it choked on.
 */
export function recordedError(error: unknown): RecordedError {
  if (error instanceof VoxtrailError) return { name: error.name, message: error.message };
  const meaning = systemErrorMeaning(error);
  if (meaning) return meaning;
  const name = error instanceof Error ? error.name : "Error";
  return { name, message: `${name} (details withheld: not a voxtrail error)` };
}
