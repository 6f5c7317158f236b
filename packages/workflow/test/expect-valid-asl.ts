import aslValidator from "asl-validator";
import { expect } from "vitest";
import type { AslDefinition } from "../src";

/** Fails the calling test, naming asl-validator's errors, unless `definition` is valid Amazon States Language. */
export function expectValidAsl(definition: AslDefinition): void {
  // asl-validator mutates its input: give it a clone.
  const { isValid, errorsText } = aslValidator(structuredClone(definition));
  expect(errorsText()).toBe("");
  expect(isValid).toBe(true);
}
