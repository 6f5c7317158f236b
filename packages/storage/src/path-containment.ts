import { realpath } from "node:fs/promises";
import path from "node:path";
import { hasErrorCode } from "./errno";

/** Whether `candidate` is `directory` itself or lies below it (a lexical check on absolute paths). */
export function isInside(directory: string, candidate: string): boolean {
  const relative = path.relative(directory, candidate);
  return !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative));
}

/**
 * The real path (symbolic links resolved) of `target`, or of its deepest existing ancestor when
 * `target` does not exist yet: where a write to `target` would actually land.
 */
export async function realpathOfExisting(target: string): Promise<string> {
  try {
    return await realpath(target);
  } catch (error) {
    const parent = path.dirname(target);
    if (parent === target || !hasErrorCode(error, "ENOENT", "ENOTDIR")) {
      throw error;
    }
    return realpathOfExisting(parent);
  }
}
