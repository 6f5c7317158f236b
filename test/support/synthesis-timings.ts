import type { Timing } from "@voxtrail/core";
import { expect } from "vitest";

/**
 * A streamed synthesis' timings by name, once the calling test has checked they are exactly
 * `synthesize.ttfb`, `synthesize.total` and `synthesize.maxGap`, each between the events it names
 * (docs/architecture.md, "Principle 5").
 *
 * @example
 * const timings = expectSynthesisTimings(stream.timings());
 * expect(timings["synthesize.ttfb"]?.ms).toBeLessThanOrEqual(timings["synthesize.total"]?.ms ?? 0);
 */
export function expectSynthesisTimings(timings: readonly Timing[]): Record<string, Timing> {
  const byName = Object.fromEntries(timings.map((timing) => [timing.name, timing]));
  expect(Object.keys(byName).sort()).toEqual(["synthesize.maxGap", "synthesize.total", "synthesize.ttfb"]);
  expect(byName).toMatchObject({
    "synthesize.ttfb": { startEvent: "request.sent", endEvent: "audio.firstChunk" },
    "synthesize.total": { startEvent: "request.sent", endEvent: "stream.done" },
    "synthesize.maxGap": { startEvent: "audio.chunk", endEvent: "audio.chunk.next" },
  });
  return byName;
}
