import { describe, expect, it } from "vitest";
import {
  type AslDefinition,
  BATCH_FUNCTIONS,
  buildPromptsDefinition,
  buildVoicemailBatchDefinition,
  buildVoicemailDefinition,
  FUNCTION_SIZES,
  FUNCTION_TIMEOUT_MARGIN_SECONDS,
  functionTimeoutSeconds,
  PROMPT_FUNCTIONS,
  type PromptFunction,
  STAGE_FUNCTIONS,
  type StageFunction,
} from "../src";
import { BATCH_FUNCTION_SIZES, PROMPT_FUNCTION_SIZES } from "../src/function-sizes";

const arnOf = (fn: string) => `arn:aws:lambda:us-east-1:123456789012:function:${fn}`;

/** Every Task state of `states`, Map item processors included, as [Resource, TimeoutSeconds]. */
function tasks(states: AslDefinition["States"]): Array<[string, unknown]> {
  return Object.values(states).flatMap((state): Array<[string, unknown]> => {
    if (state.Type === "Task" && String(state.Resource).startsWith("arn:aws:lambda:")) {
      return [[String(state.Resource), state.TimeoutSeconds]];
    }
    const processor = state.ItemProcessor as { States?: AslDefinition["States"] } | undefined;
    return processor?.States ? tasks(processor.States) : [];
  });
}

/** Each function's Lambda timeout (s) and the TimeoutSeconds of every Task state that invokes it. */
function timeoutsOf<F extends string>(
  definition: AslDefinition,
  functions: readonly F[],
  sizes: Record<F, { timeout: string }>,
) {
  return tasks(definition.States).map(([resource, taskSeconds]) => {
    const fn = functions.find((f) => arnOf(f) === resource) as F;
    return { fn, taskSeconds, functionSeconds: Number.parseInt(sizes[fn].timeout, 10) };
  });
}

describe("function timeouts and Task timeouts", () => {
  const voicemail = buildVoicemailDefinition({
    functionArns: Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [fn, arnOf(fn)])) as Record<
      StageFunction,
      string
    >,
  });
  const prompts = buildPromptsDefinition({
    functionArns: Object.fromEntries(PROMPT_FUNCTIONS.map((fn) => [fn, arnOf(fn)])) as Record<
      PromptFunction,
      string
    >,
    maxConcurrency: 4,
  });
  const batch = buildVoicemailBatchDefinition({
    functionArns: { openBatch: arnOf("openBatch") },
    voicemailStateMachineArn: "arn:aws:states:us-east-1:123456789012:stateMachine:voicemail",
    maxConcurrency: 4,
  });
  const all = [
    ...timeoutsOf(voicemail, STAGE_FUNCTIONS, FUNCTION_SIZES),
    ...timeoutsOf(prompts, PROMPT_FUNCTIONS, PROMPT_FUNCTION_SIZES),
    ...timeoutsOf(batch, BATCH_FUNCTIONS, BATCH_FUNCTION_SIZES),
  ];

  it("has every deployed function invoked by a Task state with a TimeoutSeconds", () => {
    expect(new Set(all.map((t) => t.fn))).toEqual(
      new Set([...STAGE_FUNCTIONS, ...PROMPT_FUNCTIONS, ...BATCH_FUNCTIONS]),
    );
    for (const { fn, taskSeconds } of all) expect(typeof taskSeconds, fn).toBe("number");
  });

  it("times each function out the margin before every Task state that invokes it, so its own deadline fires first", () => {
    expect(FUNCTION_TIMEOUT_MARGIN_SECONDS).toBe(10);
    for (const { fn, taskSeconds, functionSeconds } of all) {
      expect(functionSeconds, fn).toBe((taskSeconds as number) - FUNCTION_TIMEOUT_MARGIN_SECONDS);
      // Lambda's own limit.
      expect(functionSeconds, fn).toBeLessThanOrEqual(900);
    }
    expect(FUNCTION_SIZES.transcribe).toEqual({ memory: "1024 MB", timeout: "290 seconds" });
    expect(FUNCTION_SIZES.recordFailure.timeout).toBe("20 seconds");
    expect(PROMPT_FUNCTION_SIZES.preparePrompts.timeout).toBe("890 seconds");
    expect(BATCH_FUNCTION_SIZES.openBatch).toEqual({ memory: "256 MB", timeout: "20 seconds" });
  });

  it("refuses a Task timeout that leaves the function no time", () => {
    expect(functionTimeoutSeconds(11)).toBe(1);
    expect(() => functionTimeoutSeconds(FUNCTION_TIMEOUT_MARGIN_SECONDS)).toThrow(RangeError);
  });
});
