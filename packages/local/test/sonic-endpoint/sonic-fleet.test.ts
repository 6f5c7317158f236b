import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GenerationPace } from "../../src/sonic-endpoint/generation-pace";
import { SonicFleet } from "../../src/sonic-endpoint/sonic-fleet";

// The Sonic endpoint's capacity, autoscaling and pacing on a fake clock: vitest fakes the global
// Date and setTimeout they read.

const T0 = new Date("2026-12-06T10:00:00Z").getTime();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a fixed fleet", () => {
  it("admits instances x generations per instance at once, refuses the next, and counts refusals", () => {
    const fleet = new SonicFleet({ generationsPerInstance: 2, instances: 2 });
    const releases = [1, 2, 3, 4].map(() => fleet.admit());
    expect(releases.every((release) => release !== undefined)).toBe(true);
    expect(fleet.admit()).toBeUndefined();
    releases[0]?.();
    releases[0]?.(); // a second release frees nothing more
    expect(fleet.admit()).toBeDefined();
    expect(fleet.admit()).toBeUndefined();
    expect(fleet.use()).toEqual({
      inFlight: { peak: 4, capacity: 4 },
      throttled: 2,
      instances: [{ at: T0, count: 2 }],
    });
  });

  it("is unlimited without a capacity", () => {
    const fleet = new SonicFleet(undefined);
    for (let i = 0; i < 1000; i++) expect(fleet.admit()).toBeDefined();
    expect(fleet.use()).toEqual({
      inFlight: { peak: 1000, capacity: Number.POSITIVE_INFINITY },
      throttled: 0,
      instances: [],
    });
  });
});

describe("autoscaling on concurrent requests per instance", () => {
  const scaling = {
    minInstances: 1,
    maxInstances: 3,
    targetConcurrentRequestsPerInstance: 1,
    scaleOutDelayMs: 10_000,
  };

  it("adds one instance once the load has exceeded the target for the delay, up to the maximum", () => {
    const fleet = new SonicFleet({ generationsPerInstance: 2, autoscaling: scaling });
    fleet.admit();
    fleet.admit(); // 2 in flight > 1 x 1 instance
    expect(fleet.admit()).toBeUndefined(); // capacity 2
    vi.advanceTimersByTime(9_999);
    expect(fleet.use().instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(fleet.use().instances).toEqual([
      { at: T0, count: 1 },
      { at: T0 + 10_000, count: 2 },
    ]);
    fleet.admit(); // 3 in flight > 1 x 2
    fleet.admit();
    vi.advanceTimersByTime(10_000);
    fleet.admit();
    fleet.admit(); // 6 in flight > 1 x 3, but 3 is the maximum
    vi.advanceTimersByTime(60_000);
    expect(fleet.use()).toEqual({
      inFlight: { peak: 6, capacity: 6 },
      throttled: 1,
      instances: [
        { at: T0, count: 1 },
        { at: T0 + 10_000, count: 2 },
        { at: T0 + 20_000, count: 3 },
      ],
    });
  });

  it("adds nothing when the load drops back to the target before the delay is over", () => {
    const fleet = new SonicFleet({ generationsPerInstance: 2, autoscaling: scaling });
    fleet.admit();
    const second = fleet.admit();
    vi.advanceTimersByTime(9_000);
    second?.();
    vi.advanceTimersByTime(60_000);
    expect(fleet.use().instances).toEqual([{ at: T0, count: 1 }]);
  });

  it("refuses settings that could not work", () => {
    expect(() => new SonicFleet({ generationsPerInstance: 0, instances: 1 })).toThrow(
      "capacity.generationsPerInstance must be a positive integer",
    );
    expect(() => new SonicFleet({ generationsPerInstance: 2 })).toThrow(
      "capacity needs either instances or autoscaling",
    );
    expect(
      () =>
        new SonicFleet({
          generationsPerInstance: 2,
          autoscaling: { ...scaling, targetConcurrentRequestsPerInstance: 2 },
        }),
    ).toThrow("must be above 0 and below generationsPerInstance");
    expect(
      () => new SonicFleet({ generationsPerInstance: 2, autoscaling: { ...scaling, maxInstances: 0 } }),
    ).toThrow("capacity.autoscaling.maxInstances must be a positive integer");
  });
});

describe("generation time", () => {
  it("lets audio up to t leave no earlier than secondsPerAudioSecond x t after the stream began", async () => {
    const pace = new GenerationPace({ secondsPerAudioSecond: 0.5 });
    let due = false;
    void pace.until(1000).then(() => {
      due = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(due).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(due).toBe(true);
  });

  it("waits for nothing by default", async () => {
    let due = false;
    void new GenerationPace(undefined).until(60_000).then(() => {
      due = true;
    });
    await Promise.resolve();
    expect(due).toBe(true);
  });
});
