import { Worker } from "node:worker_threads";

/**
 * One worker thread answering batches: each message it is sent carries an `id`, and it answers
 * `{ id, results }`. A batch's promise settles with its answer; a thread that fails or exits
 * rejects every batch not yet answered.
 *
 * @example
 * const thread = new WorkerBatches<{ files: string[] }, FileHash[]>(new URL("./sha256-worker.mjs", import.meta.url), "sha256");
 * try {
 *   const hashes = await thread.send({ files });
 * } finally {
 *   await thread.close();
 * }
 */
export class WorkerBatches<Batch extends object, Results> {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (results: Results) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;

  /** `file`: the worker's module; `name` says which thread in the error when it exits. */
  constructor(file: URL, name: string) {
    this.#worker = new Worker(file);
    const fail = (error: Error) => {
      for (const each of this.#pending.values()) each.reject(error);
      this.#pending.clear();
    };
    this.#worker.on("message", ({ id, results }: { id: number; results: Results }) => {
      this.#pending.get(id)?.resolve(results);
      this.#pending.delete(id);
    });
    this.#worker.on("error", fail);
    this.#worker.on("exit", (code) => fail(new Error(`a ${name} worker thread exited (code ${code})`)));
  }

  /** Sends one batch (moving `transfer` to the thread) and resolves with the thread's results. */
  send(batch: Batch, transfer: ArrayBuffer[] = []): Promise<Results> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...batch, id }, transfer);
    });
  }

  /** Stops the thread; batches not yet answered are rejected. */
  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
