/**
 * Builds RIFF/WAVE files byte by byte for tests, independently of the package's writer, so that
 * malformed, unusual and truncated layouts can be described exactly.
 */

/** One chunk: id, size field (the body's length unless overridden), body and pad byte if odd. */
export function chunk(id: string, body: Uint8Array, declaredSize = body.length): Uint8Array {
  const bytes = new Uint8Array(8 + body.length + (body.length % 2));
  bytes.set(ascii(id));
  new DataView(bytes.buffer).setUint32(4, declaredSize, true);
  bytes.set(body, 8);
  return bytes;
}

/** One chunk as a writer that omits the pad byte writes it: id, size field and body, nothing after. */
export function unpaddedChunk(id: string, body: Uint8Array): Uint8Array {
  return chunk(id, body).subarray(0, 8 + body.length);
}

/** A RIFF file of the given form holding `chunks`; the RIFF size is computed unless overridden. */
export function riff(chunks: Uint8Array[], options: { form?: string; riffSize?: number } = {}): Uint8Array {
  const body = concat([ascii(options.form ?? "WAVE"), ...chunks]);
  const header = new Uint8Array(8);
  header.set(ascii("RIFF"));
  new DataView(header.buffer).setUint32(4, options.riffSize ?? body.length, true);
  return concat([header, body]);
}

/** Fields of a fmt chunk; blockAlign and byteRate are derived. */
export interface FmtFields {
  tag: number;
  channels: number;
  sampleRate: number;
  bits: number;
}

/** A plain fmt chunk body: 16 bytes, or 18 with a zero cbSize. */
export function fmtBody({ tag, channels, sampleRate, bits }: FmtFields, withCbSize = false): Uint8Array {
  const body = new Uint8Array(withCbSize ? 18 : 16);
  const view = new DataView(body.buffer);
  const blockAlign = (channels * bits) / 8;
  view.setUint16(0, tag, true);
  view.setUint16(2, channels, true);
  view.setUint32(4, sampleRate, true);
  view.setUint32(8, sampleRate * blockAlign, true);
  view.setUint16(12, blockAlign, true);
  view.setUint16(14, bits, true);
  return body;
}

/** A 40-byte WAVE_FORMAT_EXTENSIBLE fmt body whose subformat GUID carries `fields.tag`. */
export function extensibleFmtBody(fields: FmtFields, guidTail = STANDARD_GUID_TAIL): Uint8Array {
  const body = new Uint8Array(40);
  body.set(fmtBody({ ...fields, tag: 0xfffe }));
  const view = new DataView(body.buffer);
  view.setUint16(16, 22, true); // cbSize
  view.setUint16(18, fields.bits, true); // valid bits per sample
  view.setUint32(20, fields.channels === 2 ? 0x3 : 0x4, true); // channel mask
  view.setUint16(24, fields.tag, true);
  body.set(guidTail, 26);
  return body;
}

/** Bytes 2..15 of KSDATAFORMAT_SUBTYPE_PCM and friends. */
export const STANDARD_GUID_TAIL = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71];

/** Little-endian 16-bit bytes of `samples`. */
export function int16Bytes(samples: number[]): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  samples.forEach((sample, i) => {
    view.setInt16(i * 2, sample, true);
  });
  return bytes;
}

/** A 16-bit mono PCM WAV at `sampleRate` holding `samples`. */
export function pcm16Wav(samples: number[], sampleRate = 8000): Uint8Array {
  return riff([
    chunk("fmt ", fmtBody({ tag: 1, channels: 1, sampleRate, bits: 16 })),
    chunk("data", int16Bytes(samples)),
  ]);
}

/** The bytes of an ASCII string. */
export function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/** The byte arrays one after another. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
