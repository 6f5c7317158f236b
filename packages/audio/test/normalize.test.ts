import { describe, expect, it } from "vitest";
import {
  decodeMono16,
  encodeSamples,
  normalizeForTranscription,
  parseWav,
  TRANSCRIPTION_FORMAT,
  writeWav,
} from "../src/index";
import { invalidAudioMessage } from "./invalid-audio";
import { chunk, fmtBody, riff } from "./riff";
import { risingZeroCrossings, sine } from "./signals";

function mulaw8k(samples: Int16Array): Uint8Array {
  return writeWav(
    { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
    encodeSamples(samples, "pcm_mulaw"),
  );
}

describe("normalizeForTranscription", () => {
  it("is 16 kHz mono 16-bit PCM", () => {
    expect(TRANSCRIPTION_FORMAT).toEqual({ encoding: "pcm_s16le", sampleRate: 16000, channels: 1 });
  });

  it("turns an 8 kHz mu-law voicemail into a 16 kHz PCM WAV with the same tone", () => {
    const result = normalizeForTranscription(mulaw8k(sine(440, 8000, 1)));
    expect(parseWav(result.wav)).toMatchObject({
      encoding: "pcm_s16le",
      sampleRate: 16000,
      channels: 1,
      bitsPerSample: 16,
      dataOffset: 44,
      dataBytes: 32000,
    });
    expect(result.source).toMatchObject({ encoding: "pcm_mulaw", sampleRate: 8000, durationMs: 1000 });
    expect(result.durationMs).toBe(1000);
    const { samples } = decodeMono16(result.wav);
    expect(Math.abs(risingZeroCrossings(samples) - 440)).toBeLessThanOrEqual(1);
  });

  it("downmixes and downsamples 48 kHz stereo float", () => {
    const left = sine(300, 48000, 0.5);
    const interleaved = new Int16Array(left.length * 2);
    left.forEach((sample, n) => {
      interleaved[2 * n] = sample;
      interleaved[2 * n + 1] = sample;
    });
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 3, channels: 2, sampleRate: 48000, bits: 32 }, true)),
      chunk("data", encodeSamples(interleaved, "pcm_f32le")),
    ]);
    const result = normalizeForTranscription(bytes);
    expect(result.source).toMatchObject({ encoding: "pcm_f32le", channels: 2, sampleRate: 48000 });
    expect(result.durationMs).toBe(500);
    const { samples } = decodeMono16(result.wav);
    expect(samples).toHaveLength(8000);
    expect(Math.abs(risingZeroCrossings(samples) - 150)).toBeLessThanOrEqual(1);
  });

  it("accepts audio exactly as long as the limit", () => {
    const result = normalizeForTranscription(mulaw8k(new Int16Array(8000)), { maxDurationMs: 1000 });
    expect(result.durationMs).toBe(1000);
  });

  it("rejects audio longer than the limit, giving both", () => {
    const bytes = mulaw8k(new Int16Array(12000));
    expect(invalidAudioMessage(() => normalizeForTranscription(bytes, { maxDurationMs: 1000 }))).toBe(
      "the audio is 1.5 s long, longer than the limit of 1 s",
    );
  });

  it("rejects audio over the default 10 minute limit", () => {
    const bytes = mulaw8k(new Int16Array(8000 * 601));
    expect(invalidAudioMessage(() => normalizeForTranscription(bytes))).toBe(
      "the audio is 601 s long, longer than the limit of 600 s",
    );
  });

  it("throws InvalidAudio for files it cannot decode", () => {
    expect(invalidAudioMessage(() => normalizeForTranscription(new Uint8Array(0)))).toBe(
      "the audio file is empty (0 bytes)",
    );
  });
});
