import { InvalidAudio } from "@voxtrail/core";
import { expect } from "vitest";

/** Runs `action`, checks it throws an `InvalidAudio` named so, and returns the message. */
export function invalidAudioMessage(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAudio);
    expect((error as Error).name).toBe("InvalidAudio");
    return (error as Error).message;
  }
  throw new Error("expected InvalidAudio, but nothing was thrown");
}
