import { describe, expect, it } from "vitest";
import type { FactScore } from "../fact-scoring";
import { chooseThreshold, thresholdRows } from "../review-threshold";

/** A fact scored with nothing held: right or wrong, found or not, with a confidence or none. */
const fact = (right: boolean, confidence?: number, got: string | null = right ? "x" : "y"): FactScore => ({
  fact: "orderNumber",
  expected: "x",
  got,
  right,
  ...(confidence === undefined ? {} : { confidence }),
});

describe("thresholdRows", () => {
  const scores = [
    fact(true, 0.9),
    fact(true, 0.6),
    fact(true, 0.3),
    fact(false, 0.2),
    fact(false, 0.7),
    fact(false, undefined, null),
    fact(true), // an engine that gave no confidence: never held
    { fact: "record", expected: "r", got: "r", right: true } satisfies FactScore,
  ];

  it("holds the facts found below each threshold: a held fact is not right and not stated wrongly", () => {
    const [none, low, high] = thresholdRows(scores, [0, 0.25, 0.65]);
    expect(none).toMatchObject({ right: 4, statedWrong: 2, held: 0, missing: 1, total: 7 });
    expect(low).toMatchObject({ right: 4, statedWrong: 1, held: 1, statedRight: 0.8 });
    expect(high).toMatchObject({ right: 2, statedWrong: 1, held: 3 });
  });

  it("chooses the lowest threshold whose stated facts reach the target, holding the fewest right ones", () => {
    const rows = thresholdRows([fact(true, 0.9), fact(true, 0.5), fact(false, 0.4)], [0, 0.3, 0.45, 0.6]);
    expect(chooseThreshold(rows, 0.97)?.threshold).toBe(0.45);
    expect(chooseThreshold(thresholdRows([fact(false)], [0, 0.5]), 0.97)).toBeUndefined();
  });
});
