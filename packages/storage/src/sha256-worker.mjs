// A worker thread of the directory store's parallel hashing (sha256-pool.ts). It is sent batches of
// paths the store has checked lexically (its key rules), with the real path of the store's root,
// and answers, per path, the sha256 and size of the regular file it leads to; "missing" when
// nothing is there (or not a regular file); "failed" on any other error, and for a path whose
// real path leaves the root. The store reads those again itself, and the answer it gets there is
// the one that counts (not found, InvalidKey, the error): this thread only reads what plainly
// lies inside the root. Plain JavaScript with Node's modules only: a worker gets no TypeScript loader.
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { sep } from "node:path";
import { parentPort } from "node:worker_threads";

// As regular-file.ts opens: a FIFO where a file was expected must not block the thread.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
// Files are read through this one buffer, so a large one is never whole in memory.
const chunk = Buffer.allocUnsafeSlow(1 << 20);

const absent = (error) => error?.code === "ENOENT" || error?.code === "ENOTDIR";

function hashFile(realRoot, file) {
  let fd;
  try {
    const real = realpathSync.native(file);
    if (!real.startsWith(realRoot.endsWith(sep) ? realRoot : `${realRoot}${sep}`)) return "failed";
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    return absent(error) ? "missing" : "failed";
  }
  try {
    if (!fstatSync(fd).isFile()) return "missing";
    const hash = createHash("sha256");
    let bytes = 0;
    for (let count = readSync(fd, chunk); count > 0; count = readSync(fd, chunk)) {
      hash.update(chunk.subarray(0, count));
      bytes += count;
    }
    return { sha256: hash.digest("hex"), bytes };
  } catch {
    return "failed";
  } finally {
    closeSync(fd);
  }
}

parentPort.on("message", ({ id, realRoot, files }) => {
  parentPort.postMessage({ id, results: files.map((file) => hashFile(realRoot, file)) });
});
