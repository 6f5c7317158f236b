import { rmSync } from "node:fs";
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wavHeader } from "@voxtrail/audio";
import type { AudioFormat, LocalFileBody } from "@voxtrail/core";
import { attemptTmpDir } from "./middleware/temp-dirs";

/**
 * A WAV file built on local disk (in the stage attempt's temp directory, under `/tmp` in Lambda)
 * while audio streams in, so a reply of any length is never held in memory: chunks are appended as
 * they arrive, the header is written last, once the data size is known, and the store reads the
 * finished file itself (a local file body: the directory store copies it through one reused
 * buffer, where a read stream would leave a fresh 64 KiB buffer per chunk to the collector). Until
 * `finish()` nothing exists but a temp file, so an interrupted stream leaves no artifact;
 * `discard()` removes the temp file whatever happened (and the attempt's directory goes with the
 * attempt, if work cut off never gets that far).
 *
 * @example
 * const spool = await WavSpool.open(format);
 * try {
 *   for await (const chunk of stream) await spool.write(chunk);
 *   await store.put(key, await spool.finish(), { contentType: "audio/wav" });
 * } finally {
 *   await spool.discard();
 * }
 */
export class WavSpool {
  #dataBytes = 0;

  private constructor(
    private readonly format: AudioFormat,
    private readonly dir: string,
    private readonly file: FileHandle,
    private readonly headerBytes: number,
  ) {}

  /**
   * Creates the temp file, with room for the header, in a new directory under `parent`: by default
   * the temp directory of the stage attempt running in this async context (removed when the
   * attempt ends, however it ends), or, outside any attempt, the OS temp directory.
   */
  static async open(format: AudioFormat, parent: string = attemptTmpDir() ?? tmpdir()): Promise<WavSpool> {
    const dir = await mkdtemp(join(parent, "voxtrail-reply-"));
    try {
      const file = await open(join(dir, "reply.wav"), "w+");
      const headerBytes = wavHeader(format, 0).byteLength;
      await file.write(new Uint8Array(headerBytes), 0, headerBytes, 0);
      return new WavSpool(format, dir, file, headerBytes);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Bytes of audio data written so far. */
  get dataBytes(): number {
    return this.#dataBytes;
  }

  /** Appends audio in the spool's format. */
  async write(chunk: Uint8Array): Promise<void> {
    await this.file.write(chunk, 0, chunk.byteLength, this.headerBytes + this.#dataBytes);
    this.#dataBytes += chunk.byteLength;
  }

  /** Writes the pad byte an odd data length needs and the header, and names the finished file for `put`. */
  async finish(): Promise<LocalFileBody> {
    const end = this.headerBytes + this.#dataBytes;
    if (this.#dataBytes % 2 === 1) await this.file.write(new Uint8Array(1), 0, 1, end);
    const header = wavHeader(this.format, this.#dataBytes);
    await this.file.write(header, 0, header.byteLength, 0);
    await this.file.close();
    return { localFile: join(this.dir, "reply.wav") };
  }

  /**
   * Removes the temp file (after `finish()`'s file has been stored, or on failure). The removal is
   * synchronous, as the attempt's temp directory's (`removeTempDir`): on the way to the stage's
   * result, through the thread pool each call waited behind the store's flushes in flight.
   */
  async discard(): Promise<void> {
    await this.file.close().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
