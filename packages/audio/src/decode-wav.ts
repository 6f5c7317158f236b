import { downmixToMono } from "./downmix";
import { decodeSamples } from "./sample-codec";
import { parseWav, type WavInfo } from "./wav-info";

/** A WAV file decoded to mono 16-bit samples at its own sample rate. */
export interface DecodedWav {
  /** Mono samples; stereo files are averaged. */
  samples: Int16Array;
  /** The file's sample rate, unchanged. */
  sampleRate: number;
  /** The file's header as `parseWav` read it. */
  info: WavInfo;
}

/**
 * Decodes a WAV file in any supported encoding to mono 16-bit samples, averaging stereo channels.
 *
 * @throws InvalidAudio as `parseWav` does.
 * @example
 * const { samples, sampleRate } = decodeMono16(voicemailWav); // e.g. 8 kHz mu-law -> Int16Array
 */
export function decodeMono16(bytes: Uint8Array): DecodedWav {
  const info = parseWav(bytes);
  const interleaved = decodeSamples(
    bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes),
    info.encoding,
  );
  const samples = info.channels === 1 ? interleaved : downmixToMono(interleaved, info.channels);
  return { samples, sampleRate: info.sampleRate, info };
}
