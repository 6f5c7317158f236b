import type { AudioFormat } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import { decodeMono16, decodeSamples, encodeSamples, parseWav, wavHeader, writeWav } from "../src/index";
import { ascii } from "./riff";

function u16(value: number): number[] {
  return [value & 0xff, value >> 8];
}

function u32(value: number): number[] {
  return [value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, value >>> 24];
}

describe("wavHeader", () => {
  it("writes the canonical 44-byte header for 16-bit PCM", () => {
    const header = wavHeader({ encoding: "pcm_s16le", sampleRate: 16000, channels: 1 }, 32000);
    const expected = [
      ...ascii("RIFF"),
      ...u32(36 + 32000),
      ...ascii("WAVE"),
      ...ascii("fmt "),
      ...u32(16),
      ...u16(1),
      ...u16(1),
      ...u32(16000),
      ...u32(32000),
      ...u16(2),
      ...u16(16),
      ...ascii("data"),
      ...u32(32000),
    ];
    expect(Array.from(header)).toEqual(expected);
  });

  it.each([
    ["pcm_mulaw", 7, 8],
    ["pcm_alaw", 6, 8],
    ["pcm_f32le", 3, 32],
  ] as const)(
    "writes %s with format tag %i, an 18-byte fmt chunk (cbSize 0) and a fact chunk",
    (encoding, tag, bits) => {
      const frames = 8000;
      const dataBytes = (frames * bits) / 8;
      const header = wavHeader({ encoding, sampleRate: 8000, channels: 1 }, dataBytes);
      const expected = [
        ...ascii("RIFF"),
        ...u32(50 + dataBytes),
        ...ascii("WAVE"),
        ...ascii("fmt "),
        ...u32(18),
        ...u16(tag),
        ...u16(1),
        ...u32(8000),
        ...u32((8000 * bits) / 8),
        ...u16(bits / 8),
        ...u16(bits),
        ...u16(0),
        ...ascii("fact"),
        ...u32(4),
        ...u32(frames),
        ...ascii("data"),
        ...u32(dataBytes),
      ];
      expect(Array.from(header)).toEqual(expected);
    },
  );

  it("counts the pad byte of odd-length data in the RIFF size but not in the data size", () => {
    const header = new DataView(
      wavHeader({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, 3).buffer,
    );
    expect(header.getUint32(4, true)).toBe(50 + 3 + 1);
    expect(header.getUint32(54, true)).toBe(3);
  });

  it("rejects data lengths that are not whole frames or do not fit", () => {
    const pcm: AudioFormat = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 };
    expect(() => wavHeader(pcm, 3)).toThrow("wavHeader: 3 is not a whole number of 2-byte frames");
    expect(() => wavHeader(pcm, -2)).toThrow(RangeError);
    expect(() => wavHeader(pcm, 2.5)).toThrow(RangeError);
    expect(() => wavHeader(pcm, 0xfffffffe)).toThrow("do not fit in a RIFF file");
  });
});

describe("writeWav", () => {
  it.each(["pcm_s16le", "pcm_f32le", "pcm_mulaw", "pcm_alaw"] as const)(
    "writes %s files that parseWav reads back with the same format and samples",
    (encoding) => {
      const format: AudioFormat = { encoding, sampleRate: 22050, channels: 1 };
      const samples = Int16Array.of(0, 8, -8, 1000, -1000, 32767, -32768);
      const data = encodeSamples(samples, encoding);
      const file = writeWav(format, data);
      expect(parseWav(file)).toMatchObject({
        encoding,
        sampleRate: 22050,
        channels: 1,
        dataBytes: data.length,
      });
      const exact = encoding === "pcm_s16le" || encoding === "pcm_f32le";
      expect(decodeMono16(file).samples).toEqual(exact ? samples : decodeSamples(data, encoding));
    },
  );

  it("appends a pad byte after odd-length data", () => {
    const data = Uint8Array.of(1, 2, 3);
    const file = writeWav({ encoding: "pcm_alaw", sampleRate: 8000, channels: 1 }, data);
    expect(file).toHaveLength(58 + 3 + 1);
    expect(file[61]).toBe(0);
    expect(file.subarray(58, 61)).toEqual(data);
    expect(parseWav(file).dataBytes).toBe(3);
  });
});
