import { describe, expect, test } from "vitest";
import { countWordErrors, normalizeWords, wordErrorRate } from "../src/transcription/word-error-rate";

describe("normalizeWords", () => {
  test("lower-cases and breaks on punctuation, keeping apostrophes inside words", () => {
    expect(normalizeWords("Friday... actually, SORRY: I don't -- 'know'")).toEqual(
      "friday actually sorry i don't know".split(" "),
    );
  });
});

describe("countWordErrors", () => {
  test.each([
    ["call me back at five", "call me back and five", [1, 0, 0, 5]],
    ["order number four two seven one", "order four two seven one one", [0, 1, 1, 6]],
    ["a b c", "", [0, 3, 0, 3]],
    ["", "x y", [0, 0, 2, 0]],
  ])(
    "counts substitutions, deletions, insertions and reference words of a minimum-edit alignment: %j for %j",
    (reference, hypothesis, [substitutions, deletions, insertions, referenceWords]) => {
      expect(countWordErrors(reference, hypothesis)).toEqual({
        substitutions,
        deletions,
        insertions,
        referenceWords,
      });
    },
  );
});

describe("wordErrorRate", () => {
  test("is errors over reference words, after normalisation", () => {
    expect(wordErrorRate("Hi, this is Maria.", "hi this is maria")).toBe(0);
    expect(wordErrorRate("order number four two seven one", "order number four to seven when")).toBeCloseTo(
      2 / 6,
    );
    expect(wordErrorRate("one two", "one two three four five")).toBe(1.5);
  });

  test("an empty reference gives 0 for an empty hypothesis and 1 otherwise", () => {
    expect(wordErrorRate("", "")).toBe(0);
    expect(wordErrorRate("...", "um")).toBe(1);
  });
});
