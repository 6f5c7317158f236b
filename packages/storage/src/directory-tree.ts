import type { Dirent } from "node:fs";
import { readdir, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { hasErrorCode } from "./errno";
import { isInside } from "./path-containment";

/**
 * Collects, as `/`-joined keys starting with `keyPrefix`, the regular files below `directory`.
 * Symbolic links are not followed; entries whose key `skip` accepts are left out with their
 * subtrees. A missing `directory` has no files. The keys come in no particular order.
 */
export async function listFiles(
  directory: string,
  keyPrefix: string,
  skip: (key: string) => boolean,
): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if (hasErrorCode(error, "ENOENT", "ENOTDIR")) {
      return [];
    }
    throw error;
  }
  const keys: string[] = [];
  const below: Array<Promise<string[]>> = [];
  for (const entry of entries) {
    const key = keyPrefix + entry.name;
    if (skip(key)) {
      continue;
    }
    if (entry.isDirectory()) {
      // Subdirectories are read in parallel (the thread pool bounds the reads actually in flight).
      below.push(listFiles(path.join(directory, entry.name), `${key}/`, skip));
    } else if (entry.isFile()) {
      keys.push(key);
    }
  }
  for (const files of await Promise.all(below)) {
    for (const file of files) keys.push(file);
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
