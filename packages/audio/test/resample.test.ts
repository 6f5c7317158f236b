import { describe, expect, it } from "vitest";
import { resample } from "../src/index";
import { risingZeroCrossings, rms, sine, toneAmplitude } from "./signals";

describe("resample", () => {
  it("returns a copy, not the same array, when the rates are equal", () => {
    const samples = Int16Array.of(1, -2, 3);
    const result = resample(samples, 16000, 16000);
    expect(result).toEqual(samples);
    expect(result).not.toBe(samples);
  });

  it.each([
    [1000, 48000, 16000, 333],
    [1001, 44100, 16000, 363],
    [1, 8000, 16000, 2],
    [3, 16000, 8000, 2],
    [441, 22050, 16000, 320],
    [0, 8000, 16000, 0],
    [12345, 11025, 48000, 53747],
  ])("makes round(%i * to / from) samples (%i Hz -> %i Hz: %i)", (n, from, to, expected) => {
    expect(resample(new Int16Array(n), from, to)).toHaveLength(expected);
    expect(expected).toBe(Math.round((n * to) / from));
  });

  it("keeps a 440 Hz sine at 440 Hz, in phase and at full level, when downsampling 48 kHz -> 16 kHz", () => {
    const output = resample(sine(440, 48000, 1), 48000, 16000);
    const ideal = sine(440, 16000, 1);
    expect(risingZeroCrossings(output)).toBe(risingZeroCrossings(ideal));
    expect(Math.abs(risingZeroCrossings(output) - 440)).toBeLessThanOrEqual(1);
    expect(toneAmplitude(output, 440, 16000)).toBeCloseTo(10000, -2);
    let worst = 0;
    for (let n = 500; n < output.length - 500; n++)
      worst = Math.max(worst, Math.abs((output[n] ?? 0) - (ideal[n] ?? 0)));
    expect(worst).toBeLessThanOrEqual(3); // 0.03% of the amplitude: no delay, no gain error
  });

  it("keeps a 440 Hz sine at 440 Hz when upsampling 8 kHz -> 16 kHz", () => {
    const output = resample(sine(440, 8000, 1), 8000, 16000);
    const ideal = sine(440, 16000, 1);
    expect(Math.abs(risingZeroCrossings(output) - 440)).toBeLessThanOrEqual(1);
    let worst = 0;
    for (let n = 500; n < output.length - 500; n++)
      worst = Math.max(worst, Math.abs((output[n] ?? 0) - (ideal[n] ?? 0)));
    expect(worst).toBeLessThanOrEqual(3);
  });

  it("passes a 1 kHz tone through 44.1 kHz -> 16 kHz within 1% of its level", () => {
    const output = resample(sine(1000, 44100, 1), 44100, 16000);
    expect(toneAmplitude(output, 1000, 16000) / 10000).toBeGreaterThan(0.99);
    expect(toneAmplitude(output, 1000, 16000) / 10000).toBeLessThan(1.01);
  });

  it("removes a 12 kHz tone (above the new 8 kHz Nyquist) instead of aliasing it to 4 kHz", () => {
    const input = sine(12000, 48000, 1);
    const naive = input.filter((_, n) => n % 3 === 0);
    expect(rms(naive) / rms(input)).toBeGreaterThan(0.5); // what skipping the low-pass would give
    const output = resample(input, 48000, 16000);
    expect(rms(output, 100, output.length - 100) / rms(input)).toBeLessThan(0.001);
    expect(toneAmplitude(output, 4000, 16000)).toBeLessThan(5);
  });

  it("removes an 8.5 kHz tone just above the new Nyquist", () => {
    const input = sine(8500, 48000, 1);
    const output = resample(input, 48000, 16000);
    expect(rms(output, 100, output.length - 100) / rms(input)).toBeLessThan(0.01);
  });

  it("keeps a constant level (unit DC gain) away from the edges", () => {
    for (const [from, to] of [
      [8000, 16000],
      [48000, 16000],
      [44100, 16000],
      [16000, 22050],
    ] as const) {
      const output = resample(new Int16Array(4000).fill(1000), from, to);
      const middle = output.subarray(200, output.length - 200);
      expect(Math.min(...middle)).toBeGreaterThanOrEqual(999);
      expect(Math.max(...middle)).toBeLessThanOrEqual(1001);
    }
  });

  it("saturates at full scale instead of wrapping around", () => {
    const square = Int16Array.from({ length: 4800 }, (_, n) =>
      Math.floor(n / 24) % 2 === 0 ? 32767 : -32768,
    );
    const output = resample(square, 48000, 16000);
    expect(Math.max(...output)).toBe(32767);
    expect(Math.min(...output)).toBe(-32768);
    // The middle of each 8-sample half period keeps the sign of the input.
    for (let n = 100; n < output.length - 100; n++) {
      const phase = n % 16;
      if (phase >= 3 && phase <= 5) expect(output[n]).toBeGreaterThan(0);
      if (phase >= 11 && phase <= 13) expect(output[n]).toBeLessThan(0);
    }
  });

  it("is deterministic", () => {
    const input = sine(1234, 22050, 0.2);
    expect(resample(input, 22050, 16000)).toEqual(resample(input, 22050, 16000));
  });

  it("rejects rates that are not positive integers", () => {
    expect(() => resample(new Int16Array(4), 0, 16000)).toThrow(RangeError);
    expect(() => resample(new Int16Array(4), 8000, 16000.5)).toThrow(
      "resample: toRate must be a positive integer number of hertz, got 16000.5",
    );
  });
});
