import { describe, expect, it } from "vitest";
import { decodeSamples, encodeALaw, encodeMuLaw, encodeSamples } from "../src/index";
import { invalidAudioMessage } from "./invalid-audio";

const ALL_SAMPLES = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);

function floatBytes(values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => {
    view.setFloat32(i * 4, value, true);
  });
  return bytes;
}

describe("pcm_s16le", () => {
  it("writes little-endian two's complement", () => {
    const bytes = encodeSamples(Int16Array.of(1, -2, 32767, -32768), "pcm_s16le");
    expect(Array.from(bytes)).toEqual([0x01, 0x00, 0xfe, 0xff, 0xff, 0x7f, 0x00, 0x80]);
  });

  it("round-trips every sample exactly", () => {
    expect(decodeSamples(encodeSamples(ALL_SAMPLES, "pcm_s16le"), "pcm_s16le")).toEqual(ALL_SAMPLES);
  });

  it("reads from a view at an odd byte offset", () => {
    const backing = new Uint8Array([0xaa, 0x34, 0x12, 0xcc, 0xed]);
    expect(Array.from(decodeSamples(backing.subarray(1), "pcm_s16le"))).toEqual([0x1234, -0x1234]);
  });
});

describe("pcm_f32le", () => {
  it("writes little-endian floats scaled to [-1, 1)", () => {
    const bytes = encodeSamples(Int16Array.of(16384, -32768, 0), "pcm_f32le");
    expect(Array.from(bytes)).toEqual([0, 0, 0, 0x3f, 0, 0, 0x80, 0xbf, 0, 0, 0, 0]);
  });

  it("round-trips every sample exactly", () => {
    expect(decodeSamples(encodeSamples(ALL_SAMPLES, "pcm_f32le"), "pcm_f32le")).toEqual(ALL_SAMPLES);
  });

  it("rounds, saturates out-of-range values and maps NaN to 0", () => {
    const samples = decodeSamples(floatBytes([0.25, 1.5, -2, Number.NaN, 0.99999, -1]), "pcm_f32le");
    expect(Array.from(samples)).toEqual([8192, 32767, -32768, 0, 32767, -32768]);
  });
});

describe("G.711 encodings", () => {
  it("use the G.711 codecs", () => {
    const samples = Int16Array.of(0, 1000, -1000, 32767, -32768);
    expect(encodeSamples(samples, "pcm_mulaw")).toEqual(encodeMuLaw(samples));
    expect(encodeSamples(samples, "pcm_alaw")).toEqual(encodeALaw(samples));
    expect(Array.from(decodeSamples(Uint8Array.of(0xff, 0x80), "pcm_mulaw"))).toEqual([0, 32124]);
    expect(Array.from(decodeSamples(Uint8Array.of(0xd5, 0xaa), "pcm_alaw"))).toEqual([8, 32256]);
  });
});

describe("decodeSamples", () => {
  it("rejects a byte count that is not a whole number of samples", () => {
    expect(invalidAudioMessage(() => decodeSamples(new Uint8Array(3), "pcm_s16le"))).toBe(
      "pcm_s16le audio of 3 bytes is not a whole number of 2-byte samples",
    );
    expect(invalidAudioMessage(() => decodeSamples(new Uint8Array(6), "pcm_f32le"))).toBe(
      "pcm_f32le audio of 6 bytes is not a whole number of 4-byte samples",
    );
  });
});
