import { createHash } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import type { HashAlgorithm } from "./hashing-stream";

/** Bytes read and written at a time by {@link copyHashing}, through one buffer. */
const COPY_BUFFER_BYTES = 64 * 1024;

/** What {@link copyHashing} copied: its size and hex digests. */
export interface HashedCopy<A extends HashAlgorithm> {
  bytes: number;
  hex: Record<A, string>;
}

/**
 * Copies the file `from` to a new file `to` (created, or truncated), hashing the bytes on the way,
 * and flushes `to` to disk (unless `flush` is false). One 64 KiB buffer is read into and written from again and again, so a
 * file of any length costs the same memory; a read stream would allocate a fresh buffer per chunk
 * and leave them to the collector, which lets tens of megabytes of them pile up when little else
 * is allocated meanwhile.
 *
 * @example
 * const { bytes, hex } = await copyHashing("/tmp/reply.wav", temp, ["sha256", "md5"]);
 */
export async function copyHashing<A extends HashAlgorithm>(
  from: string,
  to: string,
  algorithms: readonly A[],
  flush = true,
): Promise<HashedCopy<A>> {
  const hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)] as const);
  const buffer = Buffer.allocUnsafe(COPY_BUFFER_BYTES);
  let bytes = 0;
  const source = await open(from, "r");
  try {
    const target = await open(to, "w");
    try {
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.byteLength, bytes);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        for (const [, hash] of hashes) hash.update(chunk);
        await writeAll(target, chunk);
        bytes += bytesRead;
      }
      if (flush) await target.sync();
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
  const hex = Object.fromEntries(hashes.map(([algorithm, hash]) => [algorithm, hash.digest("hex")]));
  return { bytes, hex: hex as Record<A, string> };
}

/** Writes all of `chunk` at the file's current position (a write may take only part of it). */
async function writeAll(target: FileHandle, chunk: Buffer): Promise<void> {
  let written = 0;
  while (written < chunk.byteLength) {
    written += (await target.write(chunk, written, chunk.byteLength - written)).bytesWritten;
  }
}
