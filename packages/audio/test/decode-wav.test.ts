import { describe, expect, it } from "vitest";
import { downmixToMono } from "../src/downmix";
import { decodeMono16, encodeMuLaw, encodeSamples } from "../src/index";
import { invalidAudioMessage } from "./invalid-audio";
import { ascii, chunk, fmtBody, int16Bytes, pcm16Wav, riff, unpaddedChunk } from "./riff";

describe("decodeMono16", () => {
  it("decodes 16-bit mono PCM as it is", () => {
    const decoded = decodeMono16(pcm16Wav([0, 1, -1, 32767, -32768], 16000));
    expect(Array.from(decoded.samples)).toEqual([0, 1, -1, 32767, -32768]);
    expect(decoded.sampleRate).toBe(16000);
    expect(decoded.info.encoding).toBe("pcm_s16le");
  });

  it("averages stereo channels to mono", () => {
    const interleaved = [100, 300, -100, -301, 32767, 32767, -32768, -32768, 1000, -1000];
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 1, channels: 2, sampleRate: 44100, bits: 16 })),
      chunk("data", int16Bytes(interleaved)),
    ]);
    const decoded = decodeMono16(bytes);
    expect(Array.from(decoded.samples)).toEqual([200, -201, 32767, -32768, 0]);
    expect(decoded.info.channels).toBe(2);
  });

  it("decodes mu-law through the G.711 table", () => {
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 7, channels: 1, sampleRate: 8000, bits: 8 }, true)),
      chunk("fact", Uint8Array.of(3, 0, 0, 0)),
      chunk("data", Uint8Array.of(0xff, 0x80, 0x00)),
    ]);
    expect(Array.from(decodeMono16(bytes).samples)).toEqual([0, 32124, -32124]);
  });

  it("decodes stereo float and downmixes it", () => {
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 3, channels: 2, sampleRate: 48000, bits: 32 }, true)),
      chunk("data", encodeSamples(Int16Array.of(16384, 0, -32768, -32768), "pcm_f32le")),
    ]);
    expect(Array.from(decodeMono16(bytes).samples)).toEqual([8192, -32768]);
  });

  it("decodes stereo A-law", () => {
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 6, channels: 2, sampleRate: 8000, bits: 8 }, true)),
      chunk("data", Uint8Array.of(0xd5, 0x55, 0xaa, 0xaa)),
    ]);
    expect(Array.from(decodeMono16(bytes).samples)).toEqual([0, 32256]);
  });

  it("reads only the data chunk, not what follows it", () => {
    const bytes = riff([
      chunk("fmt ", fmtBody({ tag: 7, channels: 1, sampleRate: 8000, bits: 8 })),
      chunk("data", encodeMuLaw(Int16Array.of(0, 0, 0))),
      chunk("LIST", new Uint8Array(10).fill(0x80)),
    ]);
    expect(Array.from(decodeMono16(bytes).samples)).toEqual([0, 0, 0]);
  });

  it("decodes the same samples whether an odd-sized chunk before the data has its pad byte or not", () => {
    const fmt = chunk("fmt ", fmtBody({ tag: 1, channels: 1, sampleRate: 8000, bits: 16 }));
    const data = chunk("data", int16Bytes([5, -5, 1234, -32768]));
    const padded = decodeMono16(riff([fmt, chunk("LIST", ascii("INFOabc")), data]));
    const unpadded = decodeMono16(riff([fmt, unpaddedChunk("LIST", ascii("INFOabc")), data]));
    expect(Array.from(unpadded.samples)).toEqual([5, -5, 1234, -32768]);
    expect(Array.from(unpadded.samples)).toEqual(Array.from(padded.samples));
  });

  it("throws InvalidAudio for what parseWav rejects", () => {
    expect(invalidAudioMessage(() => decodeMono16(new Uint8Array(0)))).toBe(
      "the audio file is empty (0 bytes)",
    );
  });
});

describe("downmixToMono", () => {
  it("averages any number of channels, rounding down", () => {
    expect(Array.from(downmixToMono(Int16Array.of(1, 2, 4, -1, -2, -4), 3))).toEqual([2, -3]);
  });

  it("copies mono input", () => {
    const mono = Int16Array.of(5, 6);
    const result = downmixToMono(mono, 1);
    expect(result).toEqual(mono);
    expect(result).not.toBe(mono);
  });

  it("rejects partial frames and bad channel counts", () => {
    expect(() => downmixToMono(new Int16Array(3), 2)).toThrow(
      "downmixToMono: 3 samples are not a whole number of 2-channel frames",
    );
    expect(() => downmixToMono(new Int16Array(2), 0)).toThrow(RangeError);
  });
});
