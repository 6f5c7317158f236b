import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";

/** Digests the stores record: `sha256` for lineage, `md5` for S3-style etags. */
export type HashAlgorithm = "sha256" | "md5";

/**
 * A pass-through stream that counts and hashes the bytes flowing through it, so a body is
 * hashed while it is written, without a second read.
 *
 * @example
 * const hashing = new HashingStream(["sha256"]);
 * await pipeline(source, hashing, createWriteStream(path));
 * console.log(hashing.bytes, hashing.hex("sha256"));
 */
export class HashingStream<A extends HashAlgorithm = HashAlgorithm> extends Transform {
  readonly #hashes: ReadonlyArray<readonly [A, Hash]>;
  readonly #digests = new Map<A, string>();
  #bytes = 0;

  constructor(algorithms: readonly A[]) {
    super();
    this.#hashes = algorithms.map((algorithm) => [algorithm, createHash(algorithm)] as const);
  }

  /** Bytes seen so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Hex digest of everything that passed; throws if called before the stream has ended. */
  hex(algorithm: A): string {
    const digest = this.#digests.get(algorithm);
    if (digest === undefined) {
      throw new Error(`HashingStream: no ${algorithm} digest yet (the stream has not ended)`);
    }
    return digest;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    for (const [, hash] of this.#hashes) {
      hash.update(chunk);
    }
    this.#bytes += chunk.length;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    for (const [algorithm, hash] of this.#hashes) {
      this.#digests.set(algorithm, hash.digest("hex"));
    }
    callback();
  }
}
