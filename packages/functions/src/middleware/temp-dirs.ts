import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The temp roots this process has made: each is removed, with what is left in it, at exit. */
const roots = new Set<string>();

/** The temp directory of the stage attempt running in each async context. */
const attemptDirs = new AsyncLocalStorage<string>();

/**
 * The directory every temp file of this process goes under: `voxtrail-<pid>` in the OS temp
 * directory (`/tmp` in Lambda).
 */
export function tempRoot(): string {
  return join(tmpdir(), `voxtrail-${process.pid}`);
}

/**
 * Creates a new directory `<label>-<random>` under {@link tempRoot} (only this user may read it),
 * for its caller to remove with {@link removeTempDir}. The root exists while a directory in it
 * does; the first one made under it also makes the process remove it, with whatever is still in
 * it, synchronously as it exits (`process.exit()` included, as on a second Ctrl-C): the files of
 * work cut off before it could clean up go then at the latest. Both directories are made
 * synchronously, as the store makes its own: through the thread pool each call waited behind the
 * store's flushes in flight, on the way to every attempt (docs/benchmarks.md, "Fewer thread pool
 * round trips").
 *
 * @example
 * const dir = await openTempDir(`${jobId}-Transcribe`); // /tmp/voxtrail-4242/vm-3f2a...-Transcribe-Xk2p9a
 */
export async function openTempDir(label: string): Promise<string> {
  const root = tempRoot();
  if (!roots.has(root)) {
    if (roots.size === 0) process.once("exit", removeTempRoots);
    roots.add(root);
  }
  const prefix = join(root, `${label.replace(/[^\w.-]/g, "_").slice(0, 100)}-`);
  for (let tries = 1; ; tries++) {
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 });
      return mkdtempSync(prefix);
    } catch (error) {
      // The root was removed, as the last directory in it was, while it was being made or used.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || tries === 5) throw error;
    }
  }
}

/**
 * Removes `dir`, made by {@link openTempDir}, with its content, then the root if that is empty now.
 * An empty `dir`, the usual case (a stage's temp files are removed as it goes), and the root are
 * removed synchronously, one call each, as {@link openTempDir} makes them; whatever is left in
 * `dir` is removed through the thread pool.
 */
export async function removeTempDir(dir: string): Promise<void> {
  try {
    rmdirSync(dir);
  } catch {
    await rm(dir, { recursive: true, force: true });
  }
  try {
    rmdirSync(dirname(dir));
  } catch {
    // Another directory is open in the root (or another removal took it): it stays.
  }
}

function removeTempRoots(): void {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
}

/** Runs `work` as the stage attempt whose temp directory is `dir` (see {@link attemptTmpDir}). */
export function inAttemptDir<T>(dir: string, work: () => Promise<T>): Promise<T> {
  return attemptDirs.run(dir, work);
}

/**
 * The temp directory of the stage attempt running in this async context, if any: where a helper
 * the stage's code does not hand the directory to (the reply spool) puts its files.
 */
export function attemptTmpDir(): string | undefined {
  return attemptDirs.getStore();
}
