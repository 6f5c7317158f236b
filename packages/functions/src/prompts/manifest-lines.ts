import type { Readable } from "node:stream";

/** One line of a manifest, as bytes (without its `\n` or `\r\n`), numbered from 1. */
export interface ManifestLine {
  line: number;
  bytes: Buffer;
}

/**
 * Splits a byte stream into lines as it arrives, so a manifest of any size is read with memory
 * for one line at a time. Splitting on the `\n` byte is safe before decoding: in UTF-8 that byte
 * never occurs inside a multi-byte character, so one line with bad bytes cannot affect another.
 *
 * @example
 * for await (const { line, bytes } of manifestLines(await store.get(key))) console.log(line, bytes.byteLength);
 */
export async function* manifestLines(
  body: AsyncIterable<Uint8Array> | Readable,
): AsyncGenerator<ManifestLine> {
  let pending: Buffer[] = [];
  let line = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    let data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let newline = data.indexOf(0x0a);
    while (newline >= 0) {
      pending.push(data.subarray(0, newline));
      yield { line: ++line, bytes: withoutCarriageReturn(Buffer.concat(pending)) };
      pending = [];
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    if (data.byteLength > 0) pending.push(Buffer.from(data));
  }
  if (pending.length > 0) yield { line: ++line, bytes: withoutCarriageReturn(Buffer.concat(pending)) };
}

function withoutCarriageReturn(bytes: Buffer): Buffer {
  return bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
}
