import { WorkerBatches } from "./worker-batches";

/** What a worker found at one path: the file's sha256 and size, or why it has none. */
export type FileHash = { sha256: string; bytes: number } | "missing" | "failed";

const WORKER = new URL("./sha256-worker.mjs", import.meta.url);

/**
 * Worker threads that hash files (`sha256-worker.mjs`): each batch of paths goes to the next
 * thread in turn, and its answer comes back in the order of the paths. A path whose real path
 * leaves `realRoot` is not read ("failed"); any other check of the paths is the caller's. A
 * thread that fails rejects what it was sent.
 *
 * @example
 * const pool = new Sha256Pool(2, "/srv/objects");
 * try {
 *   const [hashed] = await pool.hash(["/srv/objects/reports/vm-0123.json"]); // { sha256, bytes } | "missing" | "failed"
 * } finally {
 *   await pool.close();
 * }
 */
export class Sha256Pool {
  readonly #threads: Array<WorkerBatches<{ realRoot: string; files: string[] }, FileHash[]>>;
  readonly #realRoot: string;
  #next = 0;

  /** `realRoot`: the real path (symbolic links resolved) of the directory every file must be in. */
  constructor(threads: number, realRoot: string) {
    this.#realRoot = realRoot;
    this.#threads = Array.from({ length: threads }, () => new WorkerBatches(WORKER, "sha256"));
  }

  /** The sha256 and size of each file, in the order of `files`. */
  hash(files: string[]): Promise<FileHash[]> {
    const thread = this.#threads[this.#next++ % this.#threads.length];
    if (!thread) throw new Error("a Sha256Pool needs at least one thread");
    return thread.send({ realRoot: this.#realRoot, files });
  }

  /** Stops the threads; batches not yet answered are rejected. */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
