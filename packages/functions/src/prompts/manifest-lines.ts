import type { Readable } from "node:stream";

/**
 * Longest manifest line kept, in bytes (without its line ending). A valid row's text is at most
 * MAX_PROMPT_TEXT_CHARS (1,000) characters, each at most 4 UTF-8 bytes (or a 12-byte JSON
 * surrogate-pair escape), and its other fields are short: a valid row is under 16 KiB. 64 KiB is
 * comfortably above that, and bounds the memory a line of any length costs.
 */
export const MAX_MANIFEST_LINE_BYTES = 64 * 1024;

/**
 * One line of a manifest, as bytes (without its `\n` or `\r\n`), numbered from 1. A line longer
 * than MAX_MANIFEST_LINE_BYTES is not kept: its `bytes` are empty and `tooLongBytes` is its length.
 */
export interface ManifestLine {
  line: number;
  bytes: Buffer;
  tooLongBytes?: number;
}

/**
 * Splits a byte stream into lines as it arrives, so a manifest of any size is read with memory
 * for one line at a time, and a line of any length with at most MAX_MANIFEST_LINE_BYTES: a longer
 * line is only counted, and comes out with `tooLongBytes`. Splitting on the `\n` byte is safe
 * before decoding: in UTF-8 that byte never occurs inside a multi-byte character, so one line
 * with bad bytes cannot affect another.
 *
 * @example
 * for await (const { line, bytes } of manifestLines(await store.get(key))) console.log(line, bytes.byteLength);
 */
export async function* manifestLines(
  body: AsyncIterable<Uint8Array> | Readable,
): AsyncGenerator<ManifestLine> {
  let pending: Buffer[] = [];
  /** Bytes of the current line so far, a trailing `\r` included. */
  let size = 0;
  let lastByte: number | undefined;
  let line = 0;
  const take = (segment: Buffer) => {
    size += segment.byteLength;
    lastByte = segment.at(-1) ?? lastByte;
    // One byte over the limit may be the `\r` of a `\r\n`.
    if (size > MAX_MANIFEST_LINE_BYTES + 1) pending = [];
    else pending.push(Buffer.from(segment));
  };
  const end = (): ManifestLine => {
    const bytes = lastByte === 0x0d ? size - 1 : size;
    const ended =
      bytes > MAX_MANIFEST_LINE_BYTES
        ? { line: ++line, bytes: Buffer.alloc(0), tooLongBytes: bytes }
        : { line: ++line, bytes: withoutCarriageReturn(Buffer.concat(pending)) };
    pending = [];
    size = 0;
    lastByte = undefined;
    return ended;
  };
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    let data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let newline = data.indexOf(0x0a);
    while (newline >= 0) {
      take(data.subarray(0, newline));
      yield end();
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    if (data.byteLength > 0) take(data);
  }
  if (size > 0) yield end();
}

function withoutCarriageReturn(bytes: Buffer): Buffer {
  return bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
}
