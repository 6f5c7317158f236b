import { describe, expect, it } from "vitest";
import { buildVoicemailDefinition, RETRY_CLASSES, retryHorizonSeconds, STAGE_FUNCTIONS } from "../src";
import { testFunctionArns } from "./test-function-arns";

describe("retry classes", () => {
  it("name each error in one class only", () => {
    const names = Object.values(RETRY_CLASSES).flatMap((retryClass) => [...retryClass.errors]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("wait out a throttled service for about two hours at most, and a transient fault for seconds", () => {
    expect(retryHorizonSeconds(RETRY_CLASSES.throttled.policy)).toBe(7262);
    expect(retryHorizonSeconds(RETRY_CLASSES.transient.policy)).toBe(14);
  });

  it("give every function Task of the voicemail workflow one rule per class, with full jitter", () => {
    const { States } = buildVoicemailDefinition({
      functionArns: testFunctionArns(STAGE_FUNCTIONS),
      transcription: "service-job",
    });
    const tasks = Object.values(States).filter((state) => state.Type === "Task");
    expect(tasks.length).toBeGreaterThan(5);
    for (const task of tasks) {
      const retry = task.Retry as Array<{
        ErrorEquals: string[];
        MaxAttempts: number;
        JitterStrategy: string;
      }>;
      expect(retry.map((rule) => rule.ErrorEquals)).toEqual([
        [...RETRY_CLASSES.throttled.errors],
        [...RETRY_CLASSES.transient.errors],
      ]);
      expect(retry.every((rule) => rule.JitterStrategy === "FULL")).toBe(true);
      expect(retry[0]?.MaxAttempts).toBe(RETRY_CLASSES.throttled.policy.maxAttempts);
    }
  });

  it("wait out Bedrock's throttle in Reason: ReasoningThrottled is in its throttled rule", () => {
    const { States } = buildVoicemailDefinition({ functionArns: testFunctionArns(STAGE_FUNCTIONS) });
    const [throttled] = States.Reason!.Retry as Array<{ ErrorEquals: string[]; MaxAttempts: number }>;
    expect(throttled?.ErrorEquals).toContain("ReasoningThrottled");
    expect(throttled?.MaxAttempts).toBe(RETRY_CLASSES.throttled.policy.maxAttempts);
  });
});
