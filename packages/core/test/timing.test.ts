import { describe, expect, it } from "vitest";
import { EventClock } from "../src";

describe("EventClock", () => {
  it("measures between named events on the clock it is given", () => {
    let now = 100;
    const clock = new EventClock(() => now);
    clock.mark("request.sent");
    now = 142.5;
    clock.mark("audio.firstChunk");
    now = 500;
    clock.mark("audio.firstChunk"); // a later mark of the same event keeps the first
    expect(clock.timing("synthesize.ttfb", "request.sent", "audio.firstChunk")).toEqual({
      name: "synthesize.ttfb",
      startEvent: "request.sent",
      endEvent: "audio.firstChunk",
      ms: 42.5,
    });
  });

  it("marks an event at a time given on its clock, seen where the clock was not at hand", () => {
    const clock = new EventClock(() => 100);
    clock.mark("request.sent", 90);
    clock.mark("request.firstByteWritten", 97.25);
    clock.mark("request.firstByteWritten", 99); // the first mark is kept, as for `now`
    expect(clock.timing("synthesize.clientSetup", "request.sent", "request.firstByteWritten").ms).toBe(7.25);
  });

  it("refuses a timing whose event never happened, naming it", () => {
    const clock = new EventClock(() => 0);
    clock.mark("a");
    expect(() => clock.timing("t", "a", "b")).toThrow(/event b was never marked/);
  });
});
