import { closeSync, fsync, linkSync, mkdirSync, openSync, writeSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { hasErrorCode } from "./errno";
import { IN_THREAD_BYTES } from "./regular-file";

const fsyncAsync = promisify(fsync);

/**
 * Writes `content` to `file` (created, or truncated) and, when `flush`, flushes it to disk
 * (`fsync`) before resolving: what `writeFile(file, content, { flush })` does, in one thread pool
 * round trip instead of four: a small file is opened, written and closed on this thread (see
 * `IN_THREAD_BYTES`), and only the flush, which waits for the disk, goes to the thread pool.
 * Content over `IN_THREAD_BYTES` is written by `writeFile`.
 *
 * @example
 * await writeNewFile("/data/.voxtrail-tmp-1f2e", json, true);
 */
export async function writeNewFile(
  file: string,
  content: Uint8Array | string,
  flush: boolean,
): Promise<void> {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  if (bytes.byteLength > IN_THREAD_BYTES) return writeFile(file, bytes, { flush });
  const fd = openSync(file, "w");
  try {
    for (let written = 0; written < bytes.byteLength; ) {
      written += writeSync(fd, bytes, written, bytes.byteLength - written);
    }
    if (flush) await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Flushes the file at `file` to disk (`fsync`, which flushes the file whichever descriptor wrote
 * it): opened and closed on this thread, the flush in the thread pool.
 *
 * @example
 * await flushFile("/data/.voxtrail-tmp-1f2e");
 */
export async function flushFile(file: string): Promise<void> {
  const fd = openSync(file, "r+");
  try {
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Gives the file `existing` a second name, `name` (a hard link), making `name`'s directory when it
 * is missing (not made yet, or emptied since by a removal). Synchronous, as the store's other
 * metadata changes on the way to a write (see `IN_THREAD_BYTES`).
 *
 * @example
 * linkMakingDirectory("/data/.voxtrail-tmp-1f2e", "/data/.versions/ab/12/v1");
 */
export function linkMakingDirectory(existing: string, name: string): void {
  try {
    linkSync(existing, name);
  } catch (error) {
    if (!hasErrorCode(error, "ENOENT")) throw error;
    mkdirSync(path.dirname(name), { recursive: true });
    linkSync(existing, name);
  }
}
