import type { ReferenceLengths, TranscriptWord } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import {
  digitGroups,
  lengthGrammar,
  numbersToRefit,
  replaceNumber,
} from "../src/transcription/number-length";
import { numberWindows } from "../src/transcription/number-windows";

/** Words 300 ms long with 50 ms between them, from `startMs` on. */
function spoken(text: string, startMs = 0): TranscriptWord[] {
  return text
    .split(" ")
    .map((word, i) => ({ word, startMs: startMs + i * 350, endMs: startMs + i * 350 + 300 }));
}

const refit = (text: string, references?: ReferenceLengths) => {
  const words = spoken(text);
  return numbersToRefit(words, numberWindows(words), references);
};

describe("numbersToRefit: phone numbers", () => {
  test("a phone number one or two digits short, or one long, after a phone cue", () => {
    // The stretch reaches on to the end of the word after the number.
    expect(refit("please call me back at five five five one oh seven seven eight eight thanks")).toEqual([
      { startMs: 5 * 350, endMs: 14 * 350 + 300, kind: "phone", digits: 10 },
    ]);
    expect(refit("my number is five five five fifty eight eight one two")).toHaveLength(1);
    expect(refit("call me at five five five four one seven seven eight eight ten")).toHaveLength(1);
    // A word the recogniser put between digits does not hide them: 5552 and 29814.
    expect(refit("call me at five five five two no two ninety eight fourteen")).toHaveLength(1);
  });

  test("not a phone number of 10 or 7 digits, nor a number far from either", () => {
    expect(refit("call me at five five five one two three forty five sixty seven")).toEqual([]);
    expect(refit("call me at five five five nine three sixty six")).toEqual([]);
    expect(refit("call me at five five five nine three")).toEqual([]);
  });

  test("not an account or order number, nor a number with its correction", () => {
    expect(refit("my account number is eight eight one two five five five nine nine")).toEqual([]);
    expect(refit("about order number four five one seven four five one eight")).toEqual([]);
    expect(refit("my number is eighty one fifty four sorry eighty one fifty three")).toEqual([]);
  });
});

describe("numbersToRefit: order and account numbers", () => {
  const lengths = { order: 4, account: 6 };

  test("one digit short or long of its kind's length, after that kind's cue", () => {
    expect(refit("calling about order four four nine thanks", lengths)).toEqual([
      { startMs: 3 * 350, endMs: 6 * 350 + 300, kind: "order", digits: 4 },
    ]);
    expect(refit("about order seven three one six nine", lengths)).toMatchObject([
      { kind: "order", digits: 4 },
    ]);
    expect(refit("my account is two two eight one four", lengths)).toMatchObject([
      { kind: "account", digits: 6 },
    ]);
    // The last cue decides: an account number read out after an order was named.
    expect(refit("not the order my account is two two eight one four", lengths)).toMatchObject([
      { kind: "account" },
    ]);
  });

  test("not a number of the right length, nor two digits off, nor with its correction", () => {
    expect(refit("about order four five one seven", lengths)).toEqual([]);
    expect(refit("about order four five", lengths)).toEqual([]);
    expect(refit("about order four five one seven two one", lengths)).toEqual([]);
    expect(refit("about order four five one sorry four five one seven", lengths)).toEqual([]);
  });

  test("nothing without the kind's length, and never as a phone number", () => {
    expect(refit("about order four four nine")).toEqual([]);
    expect(refit("my account is two two eight one four", { order: 4 })).toEqual([]);
    expect(refit("my order number is five five five one oh seven seven eight eight", { account: 6 })).toEqual(
      [],
    );
  });
});

describe("lengthGrammar", () => {
  test("groups ten digits three, three and four, in single digits or pairs, with words around", () => {
    const grammar = lengthGrammar({ kind: "phone", digits: 10 });
    expect(grammar).toContain("public <window> = <edge>* <three> <three> <four> <edge>*;");
    expect(grammar).toContain("<pair> = <digit> <digit> | double <digit> | <teen> | <tens> [<nonzero>];");
    expect(grammar).toMatch(/<digit> = zero \| oh \| one .* nine;/);
    expect(grammar).not.toMatch(/<edge> = .*\b(order|account)\b/);
  });

  test("a reference number of its length in one group up to four digits, its cue allowed around it", () => {
    const grammar = lengthGrammar({ kind: "order", digits: 4 });
    expect(grammar).toContain("grammar order;");
    expect(grammar).toContain("public <window> = <edge>* <four> <edge>*;");
    expect(grammar).toMatch(/<edge> = .*\border\b/);
    expect(lengthGrammar({ kind: "account", digits: 2 })).toContain(
      "public <window> = <edge>* <pair> <edge>*;",
    );
  });

  test("longer numbers in threes from the front, the last group of two to four", () => {
    expect(digitGroups(3)).toEqual([3]);
    expect(digitGroups(5)).toEqual([3, 2]);
    expect(digitGroups(8)).toEqual([3, 3, 2]);
    expect(digitGroups(10)).toEqual([3, 3, 4]);
    for (let digits = 2; digits <= 20; digits++) {
      const groups = digitGroups(digits);
      expect(groups.reduce((a, b) => a + b, 0)).toBe(digits);
      expect(Math.min(...groups)).toBeGreaterThanOrEqual(digits === 1 ? 1 : 2);
    }
  });
});

describe("replaceNumber", () => {
  // "call me back at five five five one oh seven seven aged thanks", 300 ms words 50 ms apart.
  const words = spoken("call me back at five five five one oh seven seven aged thanks");
  // The window from the first "five" to the end of "thanks", as numbersToRefit reaches.
  const window = { startMs: 4 * 350, endMs: 12 * 350 + 300 };
  // The refit heard ten digits where the first pass heard eight and "aged", then the edge word
  // "thank", at times relative to the window.
  const digits = "five five five four one oh seven seven eight eight".split(" ");
  const refit = [
    ...digits.map((word, i) => ({ word, startMs: i * 280, endMs: i * 280 + 270 })),
    { word: "thank", startMs: 8 * 350, endMs: 8 * 350 + 300 },
  ];

  test("its digits replace the window's number words and whatever lies between them; other words stay", () => {
    const result = replaceNumber(words, window, refit);
    expect(result.map((word) => word.word).join(" ")).toBe(
      "call me back at five five five four one oh seven seven eight eight thanks",
    );
    expect(result[4]).toEqual({ word: "five", startMs: 4 * 350, endMs: 4 * 350 + 270 });
    for (const [i, word] of result.entries())
      expect(word.startMs).toBeGreaterThanOrEqual(result[i - 1]?.endMs ?? 0);
  });

  test("a refit digit is no surer than the least sure word it replaces: the grammar's posterior alone is not one", () => {
    const unsure = words.map((word) => ({ ...word, confidence: word.word === "aged" ? 0.3 : 0.9 }));
    const sure = refit.map((word) => ({ ...word, confidence: 1 }));
    const result = replaceNumber(unsure, window, sure);
    expect(result.slice(4, 14).map((word) => word.confidence)).toEqual(Array(10).fill(0.3));
    expect(result.map((word) => word.confidence).slice(0, 4)).toEqual([0.9, 0.9, 0.9, 0.9]);
  });

  test("nothing changes when the refit heard no digit", () => {
    expect(replaceNumber(words, window, [{ word: "thanks", startMs: 0, endMs: 300 }])).toEqual(words);
  });
});
