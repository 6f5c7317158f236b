import { WorkerBatches } from "@voxtrail/storage";

/**
 * What the worker thread made of one summary: the sha256 of its bytes, and either the summary
 * without its record copies (each copy re-serialised, as the recorder writes records, to the
 * bytes whose sha256 the summary names for that record) or its bytes, handed back for the full
 * check.
 */
export type ExaminedSummary = { sha256: string; outline: unknown } | { sha256: string; bytes: Buffer };

const WORKER = new URL("./summary-copies-worker.mjs", import.meta.url);

/**
 * One worker thread (`summary-copies-worker.mjs`) that parses lineage summaries and checks their
 * record copies by hash, so the thread that reads the records does not also parse every copy:
 * summaries copy their records whole, as many bytes again. The buffers sent are moved to the
 * worker; those it cannot vouch for come back.
 *
 * @example
 * const worker = new SummaryCopies();
 * try {
 *   const [examined] = await worker.examine([await store.getBytes(keys.lineageSummary(jobId))]);
 * } finally {
 *   await worker.close();
 * }
 */
export class SummaryCopies {
  readonly #thread = new WorkerBatches<{ summaries: ArrayBuffer[] }, RawExamined[]>(WORKER, "summary");

  /** Each summary's findings, in the order of `summaries` (whose memory moves to the worker). */
  async examine(summaries: Buffer[]): Promise<ExaminedSummary[]> {
    const buffers = summaries.map(ownBuffer);
    return (await this.#thread.send({ summaries: buffers }, buffers)).map(fromWorker);
  }

  /** Stops the thread; batches not yet answered are rejected. */
  close(): Promise<void> {
    return this.#thread.close();
  }
}

type RawExamined = { sha256: string; outline: unknown } | { sha256: string; bytes: ArrayBuffer };

function fromWorker(raw: RawExamined): ExaminedSummary {
  return "bytes" in raw ? { sha256: raw.sha256, bytes: Buffer.from(raw.bytes) } : raw;
}

/** The bytes as an ArrayBuffer of their own, to be moved (a pooled Buffer's is copied out). */
function ownBuffer(bytes: Buffer): ArrayBuffer {
  if (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  ) {
    return bytes.buffer;
  }
  return new Uint8Array(bytes).buffer;
}
