import { type AudioFormat, InvalidAudio } from "@voxtrail/core";
import { decodeMono16 } from "./decode-wav";
import { resample } from "./resample";
import { encodeSamples } from "./sample-codec";
import { parseWav, type WavInfo } from "./wav-info";
import { writeWav } from "./wav-writer";

/** The format transcribers take: 16 kHz mono 16-bit PCM. */
export const TRANSCRIPTION_FORMAT: AudioFormat = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 };

/** Longest audio `normalizeForTranscription` accepts unless told otherwise: 10 minutes. */
export const DEFAULT_MAX_DURATION_MS = 10 * 60 * 1000;

/** Options for `normalizeForTranscription`. */
export interface NormalizeOptions {
  /** Longest source audio accepted, in milliseconds; default 10 minutes. */
  maxDurationMs?: number;
}

/** Audio ready for a transcriber, with what it was made from. */
export interface NormalizedAudio {
  /** A 16 kHz mono 16-bit PCM WAV file (`TRANSCRIPTION_FORMAT`). */
  wav: Uint8Array;
  /** The source file's header. */
  source: WavInfo;
  /** Duration of the normalised audio in milliseconds. */
  durationMs: number;
}

/**
 * Turns any supported WAV file into the 16 kHz mono 16-bit PCM WAV transcribers take: decodes it,
 * averages stereo to mono and resamples to 16 kHz. The length limit is checked from the header,
 * before anything is decoded.
 *
 * @throws InvalidAudio when the file cannot be decoded (see `parseWav`) or is longer than
 * `maxDurationMs`; the message gives both the length and the limit.
 * @example
 * const { wav, source, durationMs } = normalizeForTranscription(voicemailBytes);
 * // source.encoding === "pcm_mulaw", source.sampleRate === 8000; wav is 16 kHz PCM
 */
export function normalizeForTranscription(
  bytes: Uint8Array,
  options: NormalizeOptions = {},
): NormalizedAudio {
  const maxDurationMs = options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
  const source = parseWav(bytes);
  if (source.durationMs > maxDurationMs) {
    throw new InvalidAudio(
      `the audio is ${seconds(source.durationMs)} long, longer than the limit of ${seconds(maxDurationMs)}`,
    );
  }
  const { samples, sampleRate } = decodeMono16(bytes);
  const normalized = resample(samples, sampleRate, TRANSCRIPTION_FORMAT.sampleRate);
  return {
    wav: writeWav(TRANSCRIPTION_FORMAT, encodeSamples(normalized, TRANSCRIPTION_FORMAT.encoding)),
    source,
    durationMs: (normalized.length * 1000) / TRANSCRIPTION_FORMAT.sampleRate,
  };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
