import type { AudioEncoding, AudioFormat } from "@voxtrail/core";
import { BYTES_PER_SAMPLE } from "./encodings";

/** WAVE format tags: PCM, IEEE float, A-law, mu-law. */
const FORMAT_TAG: Readonly<Record<AudioEncoding, number>> = {
  pcm_s16le: 0x0001,
  pcm_f32le: 0x0003,
  pcm_alaw: 0x0006,
  pcm_mulaw: 0x0007,
};
/** Largest value a RIFF size field holds. */
const MAX_CHUNK_BYTES = 0xffffffff;

/**
 * A canonical WAV header for `dataBytes` bytes of audio in `format`. 16-bit PCM gets the classic
 * 44-byte header (16-byte fmt chunk); float, mu-law and A-law get a 58-byte header with an 18-byte
 * fmt chunk (format tag 3, 7 or 6, cbSize 0) and a `fact` chunk holding the frame count, which is
 * what Amazon Connect and sox expect. The RIFF size counts the pad byte an odd data length needs.
 *
 * @throws RangeError when `dataBytes` is negative, fractional, not a whole number of frames, or too
 * large for a RIFF file.
 * @example
 * const header = wavHeader({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, mulaw.length);
 */
export function wavHeader(format: AudioFormat, dataBytes: number): Uint8Array {
  const sampleBytes = BYTES_PER_SAMPLE[format.encoding];
  const blockAlign = sampleBytes * format.channels;
  const pcm = format.encoding === "pcm_s16le";
  const headerBytes = pcm ? 44 : 58;
  const pad = dataBytes % 2;
  if (!Number.isSafeInteger(dataBytes) || dataBytes < 0 || dataBytes % blockAlign !== 0) {
    throw new RangeError(`wavHeader: ${dataBytes} is not a whole number of ${blockAlign}-byte frames`);
  }
  if (headerBytes - 8 + dataBytes + pad > MAX_CHUNK_BYTES) {
    throw new RangeError(`wavHeader: ${dataBytes} bytes of audio do not fit in a RIFF file`);
  }

  const header = new Uint8Array(headerBytes);
  const view = new DataView(header.buffer);
  let offset = 0;
  const id = (fourCC: string) => {
    for (let i = 0; i < 4; i++) header[offset + i] = fourCC.charCodeAt(i);
    offset += 4;
  };
  const u16 = (value: number) => {
    view.setUint16(offset, value, true);
    offset += 2;
  };
  const u32 = (value: number) => {
    view.setUint32(offset, value, true);
    offset += 4;
  };

  id("RIFF");
  u32(headerBytes - 8 + dataBytes + pad);
  id("WAVE");
  id("fmt ");
  u32(pcm ? 16 : 18);
  u16(FORMAT_TAG[format.encoding]);
  u16(format.channels);
  u32(format.sampleRate);
  u32(format.sampleRate * blockAlign);
  u16(blockAlign);
  u16(sampleBytes * 8);
  if (!pcm) {
    u16(0); // cbSize: no extra format bytes
    id("fact");
    u32(4);
    u32(dataBytes / blockAlign);
  }
  id("data");
  u32(dataBytes);
  return header;
}

/**
 * A complete WAV file: `wavHeader(format, data.length)`, the data, and a pad byte when the data
 * length is odd.
 *
 * @example
 * const prompt = writeWav(
 *   { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
 *   encodeSamples(samples8k, "pcm_mulaw"),
 * );
 */
export function writeWav(format: AudioFormat, data: Uint8Array): Uint8Array {
  const header = wavHeader(format, data.length);
  const wav = new Uint8Array(header.length + data.length + (data.length % 2));
  wav.set(header);
  wav.set(data, header.length);
  return wav;
}
