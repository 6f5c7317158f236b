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
  test("counts substitutions, deletions and insertions of a minimum-edit alignment", () => {
    expect(countWordErrors("call me back at five", "call me back and five")).toEqual({
      substitutions: 1,
      deletions: 0,
      insertions: 0,
      referenceWords: 5,
    });
    expect(countWordErrors("order number four two seven one", "order four two seven one one")).toEqual({
      substitutions: 0,
      deletions: 1,
      insertions: 1,
      referenceWords: 6,
    });
    expect(countWordErrors("a b c", "")).toMatchObject({ deletions: 3, referenceWords: 3 });
    expect(countWordErrors("", "x y")).toMatchObject({ insertions: 2, referenceWords: 0 });
  });
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
