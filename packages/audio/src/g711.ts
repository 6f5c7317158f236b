/**
 * ITU-T G.711 companding between 16-bit linear samples and 8-bit mu-law or A-law codes.
 *
 * Decoding uses 256-entry tables built from the recommendation's reconstruction rule; encoding
 * quantises the magnitude (so it is symmetric: `x` and `-x` differ only in the sign bit) and
 * follows the segment (chord) and step layout of G.711 tables 1 and 2, scaled to 16 bits.
 */
import { toInt16 } from "./int16";

/** Mu-law bias (33 in the 14-bit domain, 132 in 16 bits): it makes the segments line up. */
const MU_LAW_BIAS = 0x84;
/** Largest magnitude mu-law can represent once biased without overflowing segment 7. */
const MU_LAW_CLIP = 32635;
/** Largest 12-bit magnitude A-law represents (13-bit signed domain). */
const A_LAW_MAX_MAGNITUDE = 0x0fff;

const MU_LAW_TABLE = buildTable(muLawCodeToLinear);
const A_LAW_TABLE = buildTable(aLawCodeToLinear);

function buildTable(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let code = 0; code < 256; code++) table[code] = decode(code);
  return table;
}

/** Mu-law reconstruction: codes are transmitted inverted; sign, 3-bit segment, 4-bit step. */
function muLawCodeToLinear(code: number): number {
  const inverted = ~code & 0xff;
  const segment = (inverted >> 4) & 0x07;
  const step = inverted & 0x0f;
  const magnitude = (((step << 3) + MU_LAW_BIAS) << segment) - MU_LAW_BIAS;
  return inverted & 0x80 ? -magnitude : magnitude;
}

/** A-law reconstruction: even bits are inverted (XOR 0x55); a set sign bit means positive. */
function aLawCodeToLinear(code: number): number {
  const value = code ^ 0x55;
  const segment = (value >> 4) & 0x07;
  const step = value & 0x0f;
  const magnitude = segment === 0 ? (step << 4) + 8 : ((step << 4) + 0x108) << (segment - 1);
  return value & 0x80 ? magnitude : -magnitude;
}

/**
 * Decodes one mu-law byte (its low 8 bits) to a 16-bit linear sample.
 *
 * @example
 * muLawToLinear(0xff); // 0
 * muLawToLinear(0x80); // 32124
 */
export function muLawToLinear(code: number): number {
  return MU_LAW_TABLE[code & 0xff] ?? 0;
}

/**
 * Encodes a 16-bit linear sample (rounded and saturated first) as a mu-law byte; magnitudes
 * above 32635 clip to the largest code.
 *
 * @example
 * linearToMuLaw(0); // 0xff
 * linearToMuLaw(32767); // 0x80
 */
export function linearToMuLaw(sample: number): number {
  const value = toInt16(sample);
  const sign = value < 0 ? 0x80 : 0;
  const biased = Math.min(Math.abs(value), MU_LAW_CLIP) + MU_LAW_BIAS;
  // The segment is the position of the leading 1 above bit 7 (biased is at least 0x84).
  const segment = 31 - Math.clz32(biased) - 7;
  const step = (biased >> (segment + 3)) & 0x0f;
  return ~(sign | (segment << 4) | step) & 0xff;
}

/**
 * Decodes one A-law byte (its low 8 bits) to a 16-bit linear sample.
 *
 * @example
 * aLawToLinear(0xd5); // 8
 * aLawToLinear(0xaa); // 32256
 */
export function aLawToLinear(code: number): number {
  return A_LAW_TABLE[code & 0xff] ?? 0;
}

/**
 * Encodes a 16-bit linear sample (rounded and saturated first) as an A-law byte.
 *
 * @example
 * linearToALaw(0); // 0xd5
 * linearToALaw(-32768); // 0x2a
 */
export function linearToALaw(sample: number): number {
  const value = toInt16(sample);
  const magnitude = Math.min(Math.abs(value) >> 3, A_LAW_MAX_MAGNITUDE);
  // Segments 0 and 1 share the finest step (2 in 13 bits); each further segment doubles it.
  const segment = magnitude < 32 ? 0 : 31 - Math.clz32(magnitude) - 4;
  const step = (magnitude >> (segment === 0 ? 1 : segment)) & 0x0f;
  return ((segment << 4) | step) ^ (value >= 0 ? 0xd5 : 0x55);
}

/** Decodes mu-law bytes to 16-bit linear samples, one sample per byte. */
export function decodeMuLaw(codes: Uint8Array): Int16Array {
  return decodeWith(MU_LAW_TABLE, codes);
}

/** Encodes 16-bit linear samples as mu-law bytes, one byte per sample. */
export function encodeMuLaw(samples: Int16Array): Uint8Array {
  return encodeWith(linearToMuLaw, samples);
}

/** Decodes A-law bytes to 16-bit linear samples, one sample per byte. */
export function decodeALaw(codes: Uint8Array): Int16Array {
  return decodeWith(A_LAW_TABLE, codes);
}

/** Encodes 16-bit linear samples as A-law bytes, one byte per sample. */
export function encodeALaw(samples: Int16Array): Uint8Array {
  return encodeWith(linearToALaw, samples);
}

function decodeWith(table: Int16Array, codes: Uint8Array): Int16Array {
  const samples = new Int16Array(codes.length);
  for (let i = 0; i < codes.length; i++) samples[i] = table[codes[i] ?? 0] ?? 0;
  return samples;
}

function encodeWith(encode: (sample: number) => number, samples: Int16Array): Uint8Array {
  const codes = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) codes[i] = encode(samples[i] ?? 0);
  return codes;
}
