import { type Dirent, readdirSync } from "node:fs";
import { rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { setImmediate } from "node:timers/promises";
import { hasErrorCode } from "./errno";
import { isInside } from "./path-containment";

/** Directories `listFiles` reads between two turns of the event loop. */
const DIRECTORIES_PER_TURN = 256;

/**
 * Collects, as `/`-joined keys starting with `keyPrefix`, the regular files below `directory`.
 * Symbolic links are not followed; entries whose key `skip` accepts are left out with their
 * subtrees. A missing `directory` (or one removed while listed) has no files. The keys come in no
 * particular order. Each directory is read synchronously (a local readdir takes microseconds,
 * through the thread pool several times that, and a store's listing reads thousands), the event
 * loop getting its turn every 256 directories.
 */
export async function listFiles(
  directory: string,
  keyPrefix: string,
  skip: (key: string) => boolean,
): Promise<string[]> {
  const keys: string[] = [];
  const directories: Array<{ directory: string; keyPrefix: string }> = [{ directory, keyPrefix }];
  let read = 0;
  for (let next = directories.pop(); next; next = directories.pop()) {
    if (++read % DIRECTORIES_PER_TURN === 0) await setImmediate();
    let entries: Dirent[];
    try {
      entries = readdirSync(next.directory, { withFileTypes: true });
    } catch (error) {
      if (hasErrorCode(error, "ENOENT", "ENOTDIR")) continue;
      throw error;
    }
    for (const entry of entries) {
      const key = next.keyPrefix + entry.name;
      if (skip(key)) continue;
      if (entry.isDirectory()) {
        directories.push({ directory: path.join(next.directory, entry.name), keyPrefix: `${key}/` });
      } else if (entry.isFile()) {
        keys.push(key);
      }
    }
  }
  return keys;
}

/** Removes the file at `file`; a missing file (or a directory in its place) is left alone. */
export async function removeFile(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!hasErrorCode(error, "ENOENT", "ENOTDIR", "EISDIR")) {
      throw error;
    }
  }
}

/**
 * Removes `directory` and then its parents while they are empty, stopping at `stopAt` (kept),
 * so a deleted key leaves no directories behind that would block a later key.
 */
export async function removeEmptyDirectories(directory: string, stopAt: string): Promise<void> {
  let current = directory;
  while (current !== stopAt && isInside(stopAt, current)) {
    try {
      await rmdir(current);
    } catch (error) {
      if (hasErrorCode(error, "ENOTEMPTY", "EEXIST", "ENOENT")) {
        return;
      }
      throw error;
    }
    current = path.dirname(current);
  }
}
