import { closeSync, constants, fstatSync, openSync, read, readSync } from "node:fs";
import { promisify } from "node:util";

/**
 * Files at most this size are read, written or copied on the calling thread, without the thread
 * pool; larger ones go through the pool, not to hold the event loop. Why the store makes its
 * small files' and its metadata calls on this thread: through libuv's four threads each call
 * waited behind the flushes in flight, while on this thread each holds the loop for 13 to 90
 * microseconds, a file's creation at times for 0.3 ms (measured: docs/benchmarks.md, "Fewer
 * thread pool round trips").
 */
export const IN_THREAD_BYTES = 1 << 20;
/**
 * Flags to open a file that should be regular with: read-only, non-blocking so that opening a FIFO
 * found in its place cannot wait for a writer (no effect on a regular file's reads).
 */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const readAsync = promisify(read);

/**
 * The whole content of the regular file at `file`, or `undefined` when something else is there (a
 * directory, a FIFO); errors opening it (`ENOENT`, ...) are thrown as the file system gives them.
 * One open, one fstat and the reads, no realpath: the caller has checked where the path leads.
 * Opening and a small file's reads are synchronous: through the thread pool each would cost ten
 * times the system call, and lineage reads tens of thousands of small objects. A file larger
 * than 1 MiB is read through the thread pool, not to hold the event loop. Like `readFile`, reads
 * what the file holds up to the size it had when opened.
 *
 * @example
 * const body = await readRegularFile("/srv/objects/reports/vm-0123.json"); // Buffer | undefined
 */
export async function readRegularFile(file: string): Promise<Buffer | undefined> {
  const fd = openSync(file, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const { size } = stats;
    // Not from the shared pool, as readFile's: a caller may keep or transfer the buffer.
    const buffer = Buffer.allocUnsafeSlow(size);
    let filled = 0;
    while (filled < size) {
      const count =
        size <= IN_THREAD_BYTES
          ? readSync(fd, buffer, filled, size - filled, filled)
          : (await readAsync(fd, buffer, filled, size - filled, filled)).bytesRead;
      if (count === 0) break; // Truncated since the fstat.
      filled += count;
    }
    return filled === size ? buffer : buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}
