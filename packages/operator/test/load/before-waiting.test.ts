import { LOCAL_FUNCTION_ARNS } from "@voxtrail/local";
import { productionLoadQuotas } from "@voxtrail/operator/load";
import { VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { BEFORE_WAITING_RETRY, beforeWaiting, withOneRetry } from "../../src/load/before-waiting";

describe("the design before the workflow learned to wait", () => {
  it("retries every error a Task retried, one policy for all: 3 attempts, 2 s doubling to 30 s", () => {
    const today = VOICEMAIL_WORKFLOW.definition(LOCAL_FUNCTION_ARNS, "service-job");
    const before = withOneRetry(today, BEFORE_WAITING_RETRY);
    const tasks = Object.entries(today.States).filter(([, state]) => Array.isArray(state.Retry));
    expect(tasks.length).toBeGreaterThan(4);
    for (const [name, state] of tasks) {
      const named = (state.Retry as Array<{ ErrorEquals: string[] }>).flatMap((r) => r.ErrorEquals);
      expect(before.States[name]?.Retry, name).toEqual([
        {
          ErrorEquals: [...new Set(named)],
          IntervalSeconds: 2,
          BackoffRate: 2,
          MaxAttempts: 3,
          MaxDelaySeconds: 30,
          JitterStrategy: "FULL",
        },
      ]);
    }
    // Nothing else changes.
    const withoutRetry = (states: typeof today.States) =>
      Object.fromEntries(Object.entries(states).map(([name, { Retry: _r, ...rest }]) => [name, rest]));
    expect(withoutRetry(before.States)).toEqual(withoutRetry(today.States));
  });

  it("starts jobs without queueing and takes the gates away from Sonic, keeping the other quotas", () => {
    const staged = productionLoadQuotas();
    const before = beforeWaiting(staged);
    expect(before.transcribe.queueing).toBe(false);
    expect(before.lambda.reserved).toEqual({
      compactLineageIndex: staged.lambda.reserved.compactLineageIndex,
    });
    expect(before.retry).toEqual(BEFORE_WAITING_RETRY);
    expect({ ...before, transcribe: staged.transcribe, lambda: staged.lambda, retry: undefined }).toEqual({
      ...staged,
      retry: undefined,
    });
  });
});
