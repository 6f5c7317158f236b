import { realpathSync } from "node:fs";
import path from "node:path";
import { hasErrorCode } from "./errno";

/** A `.` or `..` segment, after either separator (Windows takes both). */
const DOT_SEGMENT = /[\\/]\.\.?(?=[\\/]|$)/;

/** Whether `candidate` is `directory` itself or lies below it (a lexical check on absolute paths). */
export function isInside(directory: string, candidate: string): boolean {
  // The common case, without resolving either path: no dot segments, and `directory` then a separator.
  if (
    candidate.startsWith(directory) &&
    candidate[directory.length] === path.sep &&
    !DOT_SEGMENT.test(candidate)
  ) {
    return true;
  }
  const relative = path.relative(directory, candidate);
  return !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative));
}

/**
 * The real path (symbolic links resolved) of `target`, or of its deepest existing ancestor when
 * `target` does not exist yet: where a write to `target` would actually land. The system's
 * `realpath`, called synchronously: it only reads metadata, and through the thread pool it cost
 * more than the read it guards (the directory store resolves every key it touches).
 */
export function realpathOfExisting(target: string): string {
  try {
    return realpathSync.native(target);
  } catch (error) {
    const parent = path.dirname(target);
    if (parent === target || !hasErrorCode(error, "ENOENT", "ENOTDIR")) {
      throw error;
    }
    return realpathOfExisting(parent);
  }
}
