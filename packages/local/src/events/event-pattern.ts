import type { EventPattern } from "@voxtrail/workflow";

/**
 * Whether an event matches an EventBridge event pattern, for the part of the pattern language the
 * workflow's rules use: nested objects, lists of exact strings/numbers, and `{prefix}`. Any other
 * operator throws rather than guess, so a rule that starts using one fails loudly here.
 *
 * @example
 * matchesPattern(event, voicemailRulePattern("voxtrail-local")); // true for an Object Created under incoming/voicemail/
 */
export function matchesPattern(event: unknown, pattern: EventPattern): boolean {
  if (!isObject(event)) return false;
  return Object.entries(pattern).every(([field, expected]) => {
    const actual = event[field];
    if (!Array.isArray(expected)) return matchesPattern(actual, expected);
    const values = Array.isArray(actual) ? actual : [actual];
    return values.some((value) => expected.some((matcher) => matchesValue(value, matcher)));
  });
}

function matchesValue(value: unknown, matcher: string | number | Record<string, unknown>): boolean {
  if (typeof matcher !== "object") return value === matcher;
  const [operator, operand, ...rest] = Object.entries(matcher).flat();
  if (operator === "prefix" && typeof operand === "string" && rest.length === 0) {
    return typeof value === "string" && value.startsWith(operand);
  }
  throw new Error(`event pattern operator ${JSON.stringify(matcher)} is not supported by the local router`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
