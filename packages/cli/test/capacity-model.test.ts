import { describe, expect, it } from "vitest";
import { type CapacityInputs, planCapacity } from "../src/capacity/capacity-model";
import { DEFAULT_CAPACITY_PARAMETERS } from "../src/capacity/capacity-parameters";

/** Production's endpoint (config/stages/production.json) with the model's defaults: 30 s voicemails, 3 s replies, 4 per instance. */
const INPUTS: CapacityInputs = {
  sizing: { instanceType: "ml.g6e.xlarge", minInstances: 2, maxInstances: 6 },
  parameters: DEFAULT_CAPACITY_PARAMETERS,
  instanceHourUsd: undefined,
};

const names = (plan: ReturnType<typeof planCapacity>) =>
  Object.fromEntries(plan.quotasToRaise.map((quota) => [quota.name, [quota.default, quota.needed]]));

describe("planCapacity", () => {
  it("keeps 10,000 voicemails a day on the floor's two instances, and charges the floor to them", () => {
    const plan = planCapacity({ kind: "daily", voicemails: 10_000 }, INPUTS);
    // Peak 10,000 / 86,400 x 4 = 0.46 a second, x 3 s / 4 per instance: under one instance.
    expect(plan.sonicInstances).toBe(2);
    expect(plan.beyondMaxInstances).toBe(false);
    // Two instances pass 2 x 4 / 3 s = 2.67 voicemails a second: 10,000 in 3,750 s.
    expect(plan.tightestStage).toBe("Sonic");
    expect(plan.drainSeconds).toBeCloseTo(3_750, 6);
    expect(names(plan)).toEqual({ "ml.g6e.xlarge for endpoint usage": [0, 2] });
    // 2 x 24 = 48 instance-hours a day over 10 x 1,000 voicemails.
    expect(plan.instanceHoursPer1000).toBeCloseTo(4.8, 10);
    expect(plan.usdPer1000).toBeUndefined();
  });

  it("sizes 1,000,000 a day beyond the stage's maxInstances and names the Transcribe quotas it needs", () => {
    const plan = planCapacity({ kind: "daily", voicemails: 1_000_000 }, INPUTS);
    // Peak 46.3 a second: x 3 s / 4 = 34.7 instances; x 30 s = 1,389 jobs; x 2 looks = 93 a second.
    expect(plan.sonicInstances).toBe(35);
    expect(plan.beyondMaxInstances).toBe(true);
    expect(names(plan)).toEqual({
      "ml.g6e.xlarge for endpoint usage": [0, 35],
      "Transactions per second, StartTranscriptionJob": [25, 47],
      "Transactions per second, GetTranscriptionJob": [30, 93],
      "Number of concurrent batch transcription jobs": [250, 1_389],
    });
    // Six instances pass 8 a second, just under Transcribe's 250 / 30 s = 8.33.
    expect(plan.tightestStage).toBe("Sonic");
    expect(plan.drainSeconds).toBeCloseTo(125_000, 6);
    // Busy hours 1,000,000 x 3 s / 4 / 3,600 = 208.3 over the 48 of the floor.
    expect(plan.instanceHoursPer1000).toBeCloseTo(208.33333 / 1000, 5);
  });

  it("plans a backfill at the StartExecution rate: every quota upstream of Sonic sees 300 a second", () => {
    const plan = planCapacity({ kind: "backfill", voicemails: 100_000 }, INPUTS);
    expect(plan.sonicInstances).toBe(225);
    expect(names(plan)).toEqual({
      "ml.g6e.xlarge for endpoint usage": [0, 225],
      "Transactions per second, StartTranscriptionJob": [25, 300],
      "Transactions per second, GetTranscriptionJob": [30, 600],
      "Number of concurrent batch transcription jobs": [250, 9_000],
      "Concurrent executions": [1_000, 2_400],
    });
    expect(plan.drainSeconds).toBeCloseTo(12_500, 6);
    // Six instances for the drain: 6 x 12,500 s = 20.8 instance-hours over 100 x 1,000.
    expect(plan.instanceHoursPer1000).toBeCloseTo((6 * 12_500) / 3600 / 100, 10);
  });

  it("counts the executions a large backfill leaves open while the tightest stage drains it", () => {
    const plan = planCapacity({ kind: "backfill", voicemails: 2_000_000 }, INPUTS);
    // Started at 300 a second, closed at 8: 2,000,000 x (1 - 8 / 300) open when the last starts.
    expect(names(plan)["Maximum open executions per account (Standard)"]).toEqual([1_000_000, 1_946_667]);
    expect(names(planCapacity({ kind: "backfill", voicemails: 1_000_000 }, INPUTS))).not.toHaveProperty(
      "Maximum open executions per account (Standard)",
    );
  });

  it("prices the endpoint only with a confirmed hourly price, and follows its parameters", () => {
    const priced = planCapacity({ kind: "daily", voicemails: 10_000 }, { ...INPUTS, instanceHourUsd: 2 });
    expect(priced.usdPer1000).toBeCloseTo(9.6, 10);
    const parameters = {
      ...DEFAULT_CAPACITY_PARAMETERS,
      generationsPerInstance: { ...DEFAULT_CAPACITY_PARAMETERS.generationsPerInstance, value: 8 },
    };
    const wider = planCapacity({ kind: "daily", voicemails: 1_000_000 }, { ...INPUTS, parameters });
    expect(wider.sonicInstances).toBe(18);
    // Sonic now passes 16 a second: Transcribe's 8.33 binds.
    expect(wider.tightestStage).toBe("Transcribe jobs");
    expect(wider.drainSeconds).toBeCloseTo(1_000_000 / (250 / 30), 6);
  });

  it("refuses a volume that is not a positive whole number", () => {
    expect(() => planCapacity({ kind: "daily", voicemails: 0 }, INPUTS)).toThrow(RangeError);
    expect(() => planCapacity({ kind: "backfill", voicemails: 1.5 }, INPUTS)).toThrow(RangeError);
  });
});
