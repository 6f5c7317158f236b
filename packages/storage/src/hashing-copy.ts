import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, read, readSync, write, writeSync } from "node:fs";
import { promisify } from "node:util";
import type { HashAlgorithm } from "./hashing-stream";
import { IN_THREAD_BYTES } from "./regular-file";

/** Bytes read and written at a time by {@link copyHashing}, through one buffer. */
const COPY_BUFFER_BYTES = 64 * 1024;
const readAsync = promisify(read);
const writeAsync = promisify(write);

/** What {@link copyHashing} copied: its size and hex digests. */
export interface HashedCopy<A extends HashAlgorithm> {
  bytes: number;
  hex: Record<A, string>;
}

/**
 * Copies the file `from` to a new file `to` (created, or truncated), hashing the bytes on the way;
 * `to` is not flushed (the caller flushes it while it writes what else it needs). One 64 KiB
 * buffer is read into and written from again and again, so a file of any length costs the same
 * memory; a read stream would allocate a fresh buffer per chunk and leave them to the collector,
 * which lets tens of megabytes of them pile up when little else is allocated meanwhile. A file of
 * up to `IN_THREAD_BYTES` (a reply) is copied on this thread, a larger one through the thread pool.
 *
 * @example
 * const { bytes, hex } = await copyHashing("/tmp/reply.wav", temp, ["sha256", "md5"]);
 */
export async function copyHashing<A extends HashAlgorithm>(
  from: string,
  to: string,
  algorithms: readonly A[],
): Promise<HashedCopy<A>> {
  const hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)] as const);
  const buffer = Buffer.allocUnsafe(COPY_BUFFER_BYTES);
  let bytes = 0;
  const source = openSync(from, "r");
  try {
    const inThread = fstatSync(source).size <= IN_THREAD_BYTES;
    const target = openSync(to, "w");
    try {
      for (;;) {
        const bytesRead = inThread
          ? readSync(source, buffer, 0, buffer.byteLength, bytes)
          : (await readAsync(source, buffer, 0, buffer.byteLength, bytes)).bytesRead;
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        for (const [, hash] of hashes) hash.update(chunk);
        await writeAll(target, chunk, inThread);
        bytes += bytesRead;
      }
    } finally {
      closeSync(target);
    }
  } finally {
    closeSync(source);
  }
  const hex = Object.fromEntries(hashes.map(([algorithm, hash]) => [algorithm, hash.digest("hex")]));
  return { bytes, hex: hex as Record<A, string> };
}

/** Writes all of `chunk` at the file's current position (a write may take only part of it). */
async function writeAll(target: number, chunk: Buffer, inThread: boolean): Promise<void> {
  for (let written = 0; written < chunk.byteLength; ) {
    written += inThread
      ? writeSync(target, chunk, written, chunk.byteLength - written)
      : (await writeAsync(target, chunk, written, chunk.byteLength - written)).bytesWritten;
  }
}
