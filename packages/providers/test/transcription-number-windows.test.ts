import type { TranscriptWord } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { numberGrammar, numberWindows, replaceWindows } from "../src/transcription/number-windows";

/** Words 300 ms long with 50 ms between them, from `startMs` on. */
function spoken(text: string, startMs = 0): TranscriptWord[] {
  return text.split(" ").map((word, i) => ({
    word,
    startMs: startMs + i * 350,
    endMs: startMs + i * 350 + 300,
  }));
}

describe("numberWindows", () => {
  test("a run of number words is a window from its first word's start to its last word's end", () => {
    const words = spoken("hello my name is seven three one six thanks");
    expect(numberWindows(words)).toEqual([{ startMs: 4 * 350, endMs: 7 * 350 + 300 }]);
  });

  test("one number word alone is no window", () => {
    expect(numberWindows(spoken("no one called today"))).toEqual([]);
  });

  test("a cue word before a number reaches back over the words between them", () => {
    // "call me a fight fight fight will be sixty six": the cue "me" starts the window.
    const words = spoken("call me a fight fight fight sixty six well");
    expect(numberWindows(words)).toEqual([{ startMs: 2 * 350, endMs: 7 * 350 + 300 }]);
  });

  test("number words far apart are separate windows", () => {
    const words = [...spoken("four five"), ...spoken("hello there"), ...spoken("six seven", 10_000)];
    expect(numberWindows(words)).toEqual([
      { startMs: 0, endMs: 650 },
      { startMs: 10_000, endMs: 10_650 },
    ]);
  });
});

describe("replaceWindows", () => {
  test("a relabelled word is no surer than the first pass's doubt about the word it replaces", () => {
    const words = spoken("call me fight fight thanks").map((word, i) => ({
      ...word,
      confidence: [0.9, 0.9, 0.8, 0.1, 0.9][i],
    }));
    const second = spoken("five five").map((word) => ({ ...word, confidence: 0.99 }));
    const result = replaceWindows(words, [{ window: { startMs: 700, endMs: 1350 }, words: second }]);
    const relabelled = result.filter((word) => word.word === "five").map((word) => word.confidence);
    // Over "fight" heard at 0.8 the passes disagree: 1 - 0.8; over "fight" at 0.1, the grammar's 0.99 caps it at 0.9.
    expect(relabelled[0]).toBeCloseTo(0.2, 6);
    expect(relabelled.at(-1)).toBeCloseTo(0.9, 6);
  });

  test("a number word the first pass heard keeps its own confidence", () => {
    const words = spoken("four five").map((word) => ({ ...word, confidence: 0.7 }));
    const second = spoken("four five").map((word) => ({ ...word, confidence: 0.99 }));
    const result = replaceWindows(words, [{ window: { startMs: 0, endMs: 650 }, words: second }]);
    expect(result.map((word) => word.confidence)).toEqual([0.7, 0.7]);
  });

  test("swaps the words inside each window for the second pass's, shifted to the window's start", () => {
    const words = spoken("call me fight fight fight thanks");
    const second = spoken("five five five");
    expect(replaceWindows(words, [{ window: { startMs: 700, endMs: 1750 }, words: second }])).toEqual([
      ...words.slice(0, 2),
      ...second.map((word) => ({ ...word, startMs: word.startMs + 700, endMs: word.endMs + 700 })),
      words[5],
    ]);
  });

  test("number words the first pass heard stand, and second-pass words inside them are dropped", () => {
    const words = spoken("one to three four"); // 0-300, 350-650, 700-1000, 1050-1350
    const second: TranscriptWord[] = [
      { word: "one", startMs: 0, endMs: 300 },
      { word: "two", startMs: 350, endMs: 650 },
      { word: "three", startMs: 700, endMs: 850 },
      { word: "eight", startMs: 860, endMs: 1000 },
      { word: "four", startMs: 1050, endMs: 1350 },
    ];
    const result = replaceWindows(words, [{ window: { startMs: 0, endMs: 1350 }, words: second }]);
    expect(result.map((word) => word.word).join(" ")).toBe("one two three four");
    expect(result[2]).toBe(words[2]);
  });

  test("a second-pass word in a pause, where the first pass heard no word, is dropped", () => {
    // "three, four": the grammar hears "eight" in the breath between them.
    const words = [...spoken("call me fight three"), ...spoken("four five", 1500)]; // three 1050-1350, four 1500-1800
    const second: TranscriptWord[] = [
      { word: "five", startMs: 0, endMs: 300 },
      { word: "three", startMs: 350, endMs: 650 },
      { word: "eight", startMs: 660, endMs: 790 },
      { word: "four", startMs: 800, endMs: 1100 },
    ];
    const result = replaceWindows(words, [{ window: { startMs: 700, endMs: 2150 }, words: second }]);
    expect(result.map((word) => word.word).join(" ")).toBe("call me five three four five");
  });

  test("a window whose second pass heard nothing keeps the first pass's words", () => {
    const words = spoken("four for one");
    expect(replaceWindows(words, [{ window: { startMs: 0, endMs: 1000 }, words: [] }])).toEqual(words);
  });
});

test("numberGrammar: number words, corrections between numbers, context words at the edges", () => {
  const grammar = numberGrammar();
  expect(grammar).toMatch(/^#JSGF V1\.0;\ngrammar number;\npublic <window> = <edge>\* <digits> /);
  expect(grammar).toContain("<correction> <digits>");
  expect(grammar).toMatch(/<digit> = zero \| oh \| one .* ninety \| double \| triple;/);
});
