import type { RecordedError } from "@voxtrail/core";
import { VoxtrailError } from "@voxtrail/core";

/**
 * The name and message of an error as it may be recorded. Our named errors carry messages that
 * are safe by construction; any other error is reduced to its name, because a library's message
 * may quote the data it choked on.
 */
export function recordedError(error: unknown): RecordedError {
  if (error instanceof VoxtrailError) return { name: error.name, message: error.message };
  const name = error instanceof Error ? error.name : "Error";
  return { name, message: `${name} (details withheld: not a voxtrail error)` };
}
