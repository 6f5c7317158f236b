import type { Timing } from "@voxtrail/core";
import { expect } from "vitest";

/**
 * A streamed synthesis' timings by name, once the calling test has checked they are exactly
 * `synthesize.ttfb`, `synthesize.total` and `synthesize.maxGap`, each between the events it names
 * (docs/architecture.md, "Principle 5"), and, where the synthesizer saw its request go onto the
 * wire (`onWire`, true by default: the SDK's and fetch's requests are seen), ttfb's two parts,
 * `synthesize.clientSetup` and `synthesize.wireTtfb`, which add up to it.
 *
 * @example
 * const timings = expectSynthesisTimings(stream.timings());
 * expect(timings["synthesize.ttfb"]?.ms).toBeLessThanOrEqual(timings["synthesize.total"]?.ms ?? 0);
 */
export function expectSynthesisTimings(
  timings: readonly Timing[],
  { onWire = true }: { onWire?: boolean } = {},
): Record<string, Timing> {
  const byName = Object.fromEntries(timings.map((timing) => [timing.name, timing]));
  const wireNames = onWire ? ["synthesize.clientSetup", "synthesize.wireTtfb"] : [];
  expect(Object.keys(byName).sort()).toEqual(
    ["synthesize.maxGap", "synthesize.total", "synthesize.ttfb", ...wireNames].sort(),
  );
  expect(byName).toMatchObject({
    "synthesize.ttfb": { startEvent: "request.sent", endEvent: "audio.firstChunk" },
    "synthesize.total": { startEvent: "request.sent", endEvent: "stream.done" },
    "synthesize.maxGap": { startEvent: "audio.chunk", endEvent: "audio.chunk.next" },
  });
  if (onWire) {
    expect(byName).toMatchObject({
      "synthesize.clientSetup": { startEvent: "request.sent", endEvent: "request.firstByteWritten" },
      "synthesize.wireTtfb": { startEvent: "request.firstByteWritten", endEvent: "audio.firstChunk" },
    });
    const parts = (byName["synthesize.clientSetup"]?.ms ?? 0) + (byName["synthesize.wireTtfb"]?.ms ?? 0);
    expect(parts).toBeCloseTo(byName["synthesize.ttfb"]?.ms ?? Number.NaN, 2);
  }
  return byName;
}
