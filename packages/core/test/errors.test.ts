import { describe, expect, it } from "vitest";
import {
  BoundaryViolation,
  InvalidAudio,
  ReasoningInvalidOutput,
  ReasoningThrottled,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
  THROTTLED_ERROR_NAMES,
  TRANSIENT_ERROR_NAMES,
  VoxtrailError,
} from "../src";

describe("named errors", () => {
  it("carry their class name as error.name, which Step Functions matches on", () => {
    const error = new InvalidAudio("truncated");
    expect(error).toBeInstanceOf(VoxtrailError);
    expect(error.name).toBe("InvalidAudio");
    expect(new BoundaryViolation("x").name).toBe("BoundaryViolation");
  });

  it("retry exactly the throttled and the transient ones, each in one class", () => {
    expect(THROTTLED_ERROR_NAMES).toContain(new SynthesisThrottled("429").name);
    expect(THROTTLED_ERROR_NAMES).toContain(new ReasoningThrottled("throttled").name);
    expect(THROTTLED_ERROR_NAMES).toContain("Lambda.TooManyRequestsException");
    expect(TRANSIENT_ERROR_NAMES).toContain(new SynthesisStreamInterrupted("reset").name);
    expect(
      THROTTLED_ERROR_NAMES.filter((name) => (TRANSIENT_ERROR_NAMES as readonly string[]).includes(name)),
    ).toEqual([]);
    for (const names of [THROTTLED_ERROR_NAMES, TRANSIENT_ERROR_NAMES] as readonly (readonly string[])[]) {
      expect(names).not.toContain(new InvalidAudio("x").name);
      expect(names).not.toContain(new ReasoningInvalidOutput("x").name);
    }
    for (const retryable of [SynthesisThrottled, SynthesisStreamInterrupted, ReasoningThrottled]) {
      expect(new retryable("x").retryable).toBe(true);
    }
    expect(new InvalidAudio("x").retryable).toBe(false);
  });
});
