import type { TranscriptWord } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { numberWindows } from "../src/transcription/number-windows";
import { phoneGrammar, phoneNumbersToRefit, replacePhoneNumber } from "../src/transcription/phone-length";

/** Words 300 ms long with 50 ms between them, from `startMs` on. */
function spoken(text: string, startMs = 0): TranscriptWord[] {
  return text
    .split(" ")
    .map((word, i) => ({ word, startMs: startMs + i * 350, endMs: startMs + i * 350 + 300 }));
}

const refit = (text: string) => {
  const words = spoken(text);
  return phoneNumbersToRefit(words, numberWindows(words));
};

describe("phoneNumbersToRefit", () => {
  test("a phone number one or two digits short, or one long, after a phone cue", () => {
    // The stretch reaches on to the end of the word after the number.
    expect(refit("please call me back at five five five one oh seven seven eight eight thanks")).toEqual([
      { startMs: 5 * 350, endMs: 14 * 350 + 300 },
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

describe("phoneGrammar", () => {
  test("groups ten digits three, three and four, in single digits or pairs, with words around", () => {
    const grammar = phoneGrammar();
    expect(grammar).toContain("public <window> = <edge>* <three> <three> <four> <edge>*;");
    expect(grammar).toContain("<pair> = <digit> <digit> | double <digit> | <teen> | <tens> [<nonzero>];");
    expect(grammar).toMatch(/<digit> = zero \| oh \| one .* nine;/);
  });
});

describe("replacePhoneNumber", () => {
  // "call me back at five five five one oh seven seven aged thanks", 300 ms words 50 ms apart.
  const words = spoken("call me back at five five five one oh seven seven aged thanks");
  // The window from the first "five" to the end of "thanks", as phoneNumbersToRefit reaches.
  const window = { startMs: 4 * 350, endMs: 12 * 350 + 300 };
  // The refit heard ten digits where the first pass heard eight and "aged", then the edge word
  // "thank", at times relative to the window.
  const digits = "five five five four one oh seven seven eight eight".split(" ");
  const refit = [
    ...digits.map((word, i) => ({ word, startMs: i * 280, endMs: i * 280 + 270 })),
    { word: "thank", startMs: 8 * 350, endMs: 8 * 350 + 300 },
  ];

  test("its digits replace the window's number words and whatever lies between them; other words stay", () => {
    const result = replacePhoneNumber(words, window, refit);
    expect(result.map((word) => word.word).join(" ")).toBe(
      "call me back at five five five four one oh seven seven eight eight thanks",
    );
    expect(result[4]).toEqual({ word: "five", startMs: 4 * 350, endMs: 4 * 350 + 270 });
    for (const [i, word] of result.entries())
      expect(word.startMs).toBeGreaterThanOrEqual(result[i - 1]?.endMs ?? 0);
  });

  test("nothing changes when the refit heard no digit", () => {
    expect(replacePhoneNumber(words, window, [{ word: "thanks", startMs: 0, endMs: 300 }])).toEqual(words);
  });
});
