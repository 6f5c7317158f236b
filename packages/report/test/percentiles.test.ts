import { describe, expect, test } from "vitest";
import { distribution, nearestRank } from "../src/percentiles";

describe("nearest-rank percentiles", () => {
  test("1..100: each percentile is the sample at its rank", () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // unsorted on purpose
    expect(distribution(samples)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
  });

  test("20 samples: p95 is the 19th, p99 the 20th", () => {
    const sorted = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(nearestRank(sorted, 95)).toBe(190);
    expect(nearestRank(sorted, 99)).toBe(200);
    expect(nearestRank(sorted, 50)).toBe(100);
  });

  test("always a measured value, never an average or an interpolation", () => {
    const samples = [1, 1, 1, 1, 1000];
    const d = distribution(samples);
    expect(d).toEqual({ count: 5, p50: 1, p95: 1000, p99: 1000, max: 1000 });
    expect(nearestRank([10, 20], 50)).toBe(10); // not 15
  });

  test("one sample is every percentile; none is no distribution", () => {
    expect(distribution([7.5])).toEqual({ count: 1, p50: 7.5, p95: 7.5, p99: 7.5, max: 7.5 });
    expect(distribution([])).toBeUndefined();
    expect(() => nearestRank([], 50)).toThrow(RangeError);
    expect(() => nearestRank([1], 0)).toThrow(RangeError);
  });
});
