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
  // One 10 s datapoint each period, 3 breaching in a row fire the alarm, instances serve 60 s later.
  const timing = { metricPeriodMs: 10_000, alarmDatapoints: 3, instanceStartupMs: 60_000 };

  /** Holds `count` invocations, failing if the fleet refuses one. */
  function hold(fleet: SonicFleet, count: number): Array<() => void> {
    return Array.from({ length: count }, () => {
      const release = fleet.admit();
      if (release === undefined) throw new Error("refused");
      return release;
    });
  }

  it("scales out under churn: in flight dips below the target for a moment every second, but each period's maximum stays above it", () => {
    const fleet = new SonicFleet({
      generationsPerInstance: 4,
      autoscaling: { minInstances: 1, maxInstances: 4, targetConcurrentRequestsPerInstance: 2, ...timing },
    });
    const held = hold(fleet, 4); // 4 per instance > target 2
    for (let second = 0; second < 90; second++) {
      vi.advanceTimersByTime(900);
      for (const release of held.splice(0, 2)) release(); // 2 in flight: at the target
      vi.advanceTimersByTime(100);
      held.push(...hold(fleet, 2)); // back to 4
    }
    // The alarm fires at the third datapoint (30 s); the instance serves 60 s later.
    expect(fleet.use().instances).toEqual([
      { at: T0, count: 1 },
      { at: T0 + 90_000, count: 2 },
    ]);
    fleet.stop();
  });

  it("sets the desired count in proportion to the metric in one step: 3 x the target takes 3 x the instances, capped at the maximum", () => {
    for (const { maxInstances, expected } of [
      { maxInstances: 10, expected: 6 },
      { maxInstances: 5, expected: 5 },
    ]) {
      vi.setSystemTime(T0);
      const fleet = new SonicFleet({
        generationsPerInstance: 4,
        autoscaling: { minInstances: 2, maxInstances, targetConcurrentRequestsPerInstance: 1, ...timing },
      });
      hold(fleet, 6); // 3 per instance over 2 instances
      vi.advanceTimersByTime(30_000 + 60_000);
      expect(fleet.use().instances).toEqual([
        { at: T0, count: 2 },
        { at: T0 + 90_000, count: expected },
      ]);
      fleet.stop();
    }
  });

  it("does not scale while the load stays at the target", () => {
    const fleet = new SonicFleet({
      generationsPerInstance: 4,
      autoscaling: { minInstances: 1, maxInstances: 4, targetConcurrentRequestsPerInstance: 2, ...timing },
    });
    hold(fleet, 2);
    vi.advanceTimersByTime(600_000);
    expect(fleet.use().instances).toEqual([{ at: T0, count: 1 }]);
    fleet.stop();
  });

  it("serves the new instances only after their start-up, and starts no other scale-out meanwhile", () => {
    const fleet = new SonicFleet({
      generationsPerInstance: 2,
      autoscaling: { minInstances: 1, maxInstances: 8, targetConcurrentRequestsPerInstance: 1, ...timing },
    });
    hold(fleet, 2); // 2 per instance: desired 2 at 30 s
    vi.advanceTimersByTime(30_000 + 59_999);
    expect(fleet.admit()).toBeUndefined(); // still one instance's 2 slots
    expect(fleet.use().instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    hold(fleet, 2); // the second instance's slots: 2 per instance on 2
    expect(fleet.use().instances).toEqual([
      { at: T0, count: 1 },
      { at: T0 + 90_000, count: 2 },
    ]);
    // The breaching datapoints during the start-up (40 s to 80 s) started nothing; the alarm stayed
    // in ALARM, and the datapoint ending at 90 s (2 per instance, measured on one) finds the start-up
    // over: ceil(2 instances x 2 / 1) = 4, serving at 150 s.
    vi.advanceTimersByTime(70_000);
    expect(fleet.use().instances).toEqual([
      { at: T0, count: 1 },
      { at: T0 + 90_000, count: 2 },
      { at: T0 + 150_000, count: 4 },
    ]);
    fleet.stop();
  });

  it("leaves no timer behind: the period timer stops after an idle period, and stop clears a start-up in progress", () => {
    const scaling = { minInstances: 1, maxInstances: 2, targetConcurrentRequestsPerInstance: 1, ...timing };
    const idle = new SonicFleet({ generationsPerInstance: 2, autoscaling: scaling });
    const release = idle.admit();
    expect(vi.getTimerCount()).toBe(1);
    release?.();
    vi.advanceTimersByTime(20_000);
    expect(vi.getTimerCount()).toBe(0);

    const busy = new SonicFleet({ generationsPerInstance: 2, autoscaling: scaling });
    hold(busy, 2);
    vi.advanceTimersByTime(30_000); // the alarm fired: a start-up is in progress
    expect(vi.getTimerCount()).toBe(2);
    busy.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(600_000);
    expect(busy.use().instances).toHaveLength(1);
  });

  it("refuses settings that could not work", () => {
    const scaling = { minInstances: 1, maxInstances: 3, targetConcurrentRequestsPerInstance: 1 };
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
    expect(
      () => new SonicFleet({ generationsPerInstance: 2, autoscaling: { ...scaling, alarmDatapoints: 0 } }),
    ).toThrow("capacity.autoscaling.alarmDatapoints must be a positive integer");
    expect(
      () => new SonicFleet({ generationsPerInstance: 2, autoscaling: { ...scaling, instanceStartupMs: -1 } }),
    ).toThrow("capacity.autoscaling.instanceStartupMs must be a non-negative number of milliseconds");
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
