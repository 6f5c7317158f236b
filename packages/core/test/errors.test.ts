import { describe, expect, it } from "vitest";
import {
  BoundaryViolation,
  InvalidAudio,
  ReasoningInvalidOutput,
  ReasoningThrottled,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
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

  it("retry exactly the transient ones", () => {
    expect(TRANSIENT_ERROR_NAMES).toContain(new SynthesisThrottled("429").name);
    expect(TRANSIENT_ERROR_NAMES).toContain(new SynthesisStreamInterrupted("reset").name);
    expect(TRANSIENT_ERROR_NAMES).toContain(new ReasoningThrottled("throttled").name);
    expect(TRANSIENT_ERROR_NAMES).not.toContain(new InvalidAudio("x").name);
    expect(TRANSIENT_ERROR_NAMES).not.toContain(new ReasoningInvalidOutput("x").name);
    for (const retryable of [SynthesisThrottled, SynthesisStreamInterrupted, ReasoningThrottled]) {
      expect(new retryable("x").retryable).toBe(true);
    }
    expect(new InvalidAudio("x").retryable).toBe(false);
  });
});
