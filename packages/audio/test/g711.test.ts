import { describe, expect, it } from "vitest";
import {
  aLawToLinear,
  decodeALaw,
  decodeMuLaw,
  linearToALaw,
  linearToMuLaw,
  muLawToLinear,
} from "../src/g711";
import { encodeALaw, encodeMuLaw } from "../src/index";
import { sine } from "./signals";

/** Every 16-bit sample value, -32768..32767. */
const ALL_SAMPLES = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);

function snrDb(reference: Int16Array, decoded: Int16Array): number {
  let signal = 0;
  let noise = 0;
  reference.forEach((value, n) => {
    signal += value ** 2;
    noise += (value - (decoded[n] ?? 0)) ** 2;
  });
  return 10 * Math.log10(signal / noise);
}

describe("mu-law", () => {
  it("decodes codes to the G.711 reconstruction values", () => {
    expect(muLawToLinear(0xff)).toBe(0);
    expect(muLawToLinear(0x7f)).toBe(0);
    expect(muLawToLinear(0x80)).toBe(32124);
    expect(muLawToLinear(0x00)).toBe(-32124);
    expect(muLawToLinear(0xfe)).toBe(8);
    expect(muLawToLinear(0xf0)).toBe(120);
    expect(muLawToLinear(0xef)).toBe(132);
    expect(muLawToLinear(0x7e)).toBe(-8);
  });

  it("encodes silence, full scale and small values to the expected codes", () => {
    expect(linearToMuLaw(0)).toBe(0xff);
    expect(linearToMuLaw(32767)).toBe(0x80);
    expect(linearToMuLaw(-32768)).toBe(0x00);
    expect(linearToMuLaw(8)).toBe(0xfe);
    expect(linearToMuLaw(-8)).toBe(0x7e);
  });

  it("re-encodes every decoded code to itself (except negative zero, which becomes 0xff)", () => {
    for (let code = 0; code < 256; code++) {
      expect(linearToMuLaw(muLawToLinear(code))).toBe(code === 0x7f ? 0xff : code);
    }
  });

  it("round-trips every 16-bit sample within half a quantisation step", () => {
    const outOfStep = ALL_SAMPLES.filter((sample) => {
      const decoded = muLawToLinear(linearToMuLaw(sample));
      const magnitude = Math.abs(sample);
      return magnitude <= 32635
        ? Math.abs(decoded - sample) > (magnitude + 0x84) / 32
        : decoded !== Math.sign(sample) * 32124;
    });
    expect(Array.from(outOfStep)).toEqual([]);
  });
});

describe("A-law", () => {
  it("decodes codes to the G.711 reconstruction values", () => {
    expect(aLawToLinear(0xd5)).toBe(8);
    expect(aLawToLinear(0x55)).toBe(-8);
    expect(aLawToLinear(0xd4)).toBe(24);
    expect(aLawToLinear(0xaa)).toBe(32256);
    expect(aLawToLinear(0x2a)).toBe(-32256);
    expect(aLawToLinear(0x80)).toBe(5504);
    expect(aLawToLinear(0x00)).toBe(-5504);
  });

  it("encodes silence and full scale to the expected codes", () => {
    expect(linearToALaw(0)).toBe(0xd5);
    expect(linearToALaw(-1)).toBe(0x55);
    expect(linearToALaw(32767)).toBe(0xaa);
    expect(linearToALaw(-32768)).toBe(0x2a);
  });

  it("re-encodes every decoded code to itself", () => {
    for (let code = 0; code < 256; code++) expect(linearToALaw(aLawToLinear(code))).toBe(code);
  });

  it("round-trips every 16-bit sample within half a quantisation step", () => {
    const outOfStep = ALL_SAMPLES.filter((sample) => {
      const decoded = aLawToLinear(linearToALaw(sample));
      return Math.abs(decoded - sample) > Math.max(8, Math.abs(sample) / 32);
    });
    expect(Array.from(outOfStep)).toEqual([]);
  });
});

describe.each([
  { law: "mu-law", encode: linearToMuLaw, encodeAll: encodeMuLaw, decodeAll: decodeMuLaw },
  { law: "A-law", encode: linearToALaw, encodeAll: encodeALaw, decodeAll: decodeALaw },
])("$law", ({ encode, encodeAll, decodeAll }) => {
  it("is symmetric: x and -x differ only in the sign bit", () => {
    const asymmetric = ALL_SAMPLES.filter(
      (sample) => sample > 0 && encode(-sample) !== (encode(sample) ^ 0x80),
    );
    expect(Array.from(asymmetric)).toEqual([]);
  });

  it("keeps a speech-level sine above 35 dB SNR", () => {
    const tone = sine(440, 8000, 0.5, 8000);
    expect(snrDb(tone, decodeAll(encodeAll(tone)))).toBeGreaterThan(35);
  });
});

describe("array forms", () => {
  it("match the scalar functions sample by sample", () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(Array.from(decodeMuLaw(codes))).toEqual(Array.from(codes, muLawToLinear));
    expect(Array.from(decodeALaw(codes))).toEqual(Array.from(codes, aLawToLinear));
    expect(Array.from(encodeMuLaw(ALL_SAMPLES))).toEqual(Array.from(ALL_SAMPLES, linearToMuLaw));
    expect(Array.from(encodeALaw(ALL_SAMPLES))).toEqual(Array.from(ALL_SAMPLES, linearToALaw));
  });

  it("handle empty input", () => {
    expect(decodeMuLaw(new Uint8Array(0))).toHaveLength(0);
    expect(encodeALaw(new Int16Array(0))).toHaveLength(0);
  });
});
