import { type AudioEncoding, InvalidAudio } from "@voxtrail/core";
import { BYTES_PER_SAMPLE } from "./encodings";
import { decodeALaw, decodeMuLaw, encodeALaw, encodeMuLaw } from "./g711";
import { toInt16 } from "./int16";

/** Full scale for float samples: an int16 sample `s` is the float `s / 32768`, in [-1, 1). */
const FLOAT_SCALE = 32768;

/** How each encoding turns 16-bit samples into raw bytes and back. */
const CODECS: Record<
  AudioEncoding,
  { encode(samples: Int16Array): Uint8Array; decode(bytes: Uint8Array): Int16Array }
> = {
  pcm_s16le: { encode: encodeInt16, decode: decodeInt16 },
  pcm_f32le: { encode: encodeFloat32, decode: decodeFloat32 },
  pcm_mulaw: { encode: encodeMuLaw, decode: decodeMuLaw },
  pcm_alaw: { encode: encodeALaw, decode: decodeALaw },
};

/**
 * Encodes 16-bit samples as raw bytes in `encoding`: little-endian int16, little-endian float32 in
 * [-1, 1), or one G.711 byte per sample. Interleaved channels stay interleaved.
 *
 * @example
 * const raw = encodeSamples(new Int16Array([0, 16384, -32768]), "pcm_f32le"); // floats 0, 0.5, -1
 */
export function encodeSamples(samples: Int16Array, encoding: AudioEncoding): Uint8Array {
  return CODECS[encoding].encode(samples);
}

/**
 * Decodes raw bytes in `encoding` to 16-bit samples: the inverse of `encodeSamples`. Floats are
 * scaled by 32768, rounded and saturated (NaN becomes 0).
 *
 * @throws InvalidAudio when the byte count is not a whole number of samples.
 * @example
 * const samples = decodeSamples(chunk, "pcm_mulaw"); // one sample per byte
 */
export function decodeSamples(bytes: Uint8Array, encoding: AudioEncoding): Int16Array {
  const width = BYTES_PER_SAMPLE[encoding];
  if (bytes.length % width !== 0) {
    throw new InvalidAudio(
      `${encoding} audio of ${bytes.length} bytes is not a whole number of ${width}-byte samples`,
    );
  }
  return CODECS[encoding].decode(bytes);
}

function encodeInt16(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] ?? 0, true);
  return bytes;
}

function decodeInt16(bytes: Uint8Array): Int16Array {
  const view = viewOf(bytes);
  const samples = new Int16Array(bytes.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

function encodeFloat32(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setFloat32(i * 4, (samples[i] ?? 0) / FLOAT_SCALE, true);
  return bytes;
}

function decodeFloat32(bytes: Uint8Array): Int16Array {
  const view = viewOf(bytes);
  const samples = new Int16Array(bytes.length / 4);
  for (let i = 0; i < samples.length; i++) samples[i] = toInt16(view.getFloat32(i * 4, true) * FLOAT_SCALE);
  return samples;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
