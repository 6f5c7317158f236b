import type { TranscriptWord } from "@voxtrail/core";

/** The words for one digit, "oh" for zero among them. */
export const DIGIT_NAMES = "zero oh one two three four five six seven eight nine".split(" ");
/** The words for a pair of digits from 10 to 19. */
export const TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(
  " ",
);
/** The words for the first digit of a pair from 20 up ("fifty", or "fifty five" with a digit). */
export const TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split(" ");

/** Words that say a number, as the reasoner reads them: digits, "oh", teens, tens, "double", "triple". */
const NUMBER_WORDS = [...DIGIT_NAMES, ...TEENS, ...TENS, "double", "triple"];

/**
 * Words callers say just before or after a number ("call me back at", "thanks"), which the grammar
 * allows at a window's edges so that they are not forced into digits.
 */
export const EDGE_WORDS: readonly string[] =
  "and at is it's my number account order call me back the thanks thank you please that's uh um".split(" ");

/** What callers say between a number and its correction ("seven three one seven, sorry, I mean ..."). */
const CORRECTIONS = ["sorry i mean", "sorry", "i mean", "no wait", "no", "actually"];

/** The grammar's number words, which tell a second pass's number from the words around it. */
export const DIGIT_WORDS: ReadonlySet<string> = new Set(NUMBER_WORDS);

/** Number words that seed a window; pocketsphinx's "o" is its spelling of "oh". */
export const SEED_WORDS: ReadonlySet<string> = new Set([...NUMBER_WORDS, "o"]);
/** Fewest number words a window must hold unless a cue announces it: one alone is often a word ("no one"). */
const MIN_SEEDS = 2;
/** Largest silence or run of other words between two number words of one window. */
const MAX_SEED_GAP_MS = 1200;
/** Words after which a number is announced ("my number is", "call me back at", "order ..."). */
const CUE_WORDS = new Set("number me back at account order".split(" "));
/** Longest stretch between a cue word and the first number word it announces. */
const CUE_REACH_MS = 3500;

/** A stretch of audio to decode again with the number grammar, in milliseconds. */
export interface NumberWindow {
  startMs: number;
  endMs: number;
}

/**
 * The stretches of a first-pass transcript where a number was probably spoken: runs of number
 * words ("five", "sixty", "oh", ...) no more than 1.2 s apart, each reaching back to the cue word
 * that announces it ("number", "me", "back", "at", "account", "order") when one ends within 3.5 s
 * before it, so that digits the first pass heard as other words ("call me a fight fight fight
 * sixty six" for "call me at five five five sixty six") are inside. A run of one number word
 * counts only after a cue. Each window starts at a word's start and ends at a word's end; windows
 * that touch are merged.
 *
 * @example
 * numberWindows(words); // [{ startMs: 9530, endMs: 12720 }]
 */
export function numberWindows(words: readonly TranscriptWord[]): NumberWindow[] {
  const seeds = words.filter((word) => SEED_WORDS.has(word.word));
  const runs: TranscriptWord[][] = [];
  for (const seed of seeds) {
    const run = runs.at(-1);
    const previous = run?.at(-1);
    if (run && previous && seed.startMs - previous.endMs <= MAX_SEED_GAP_MS) run.push(seed);
    else runs.push([seed]);
  }
  const windows: NumberWindow[] = [];
  for (const run of runs) {
    const first = run[0] as TranscriptWord;
    const last = run.at(-1) as TranscriptWord;
    const cue = words.findLast(
      (word) =>
        CUE_WORDS.has(word.word) && word.endMs <= first.startMs && first.startMs - word.endMs <= CUE_REACH_MS,
    );
    if (run.length < MIN_SEEDS && !cue) continue;
    const announced = cue ? words.find((word) => word.startMs >= cue.endMs) : undefined;
    const window = {
      startMs: Math.min(first.startMs, announced?.startMs ?? first.startMs),
      endMs: last.endMs,
    };
    const previous = windows.at(-1);
    if (previous && window.startMs <= previous.endMs) previous.endMs = Math.max(previous.endMs, window.endMs);
    else windows.push(window);
  }
  return windows;
}

/**
 * The JSGF grammar of a number window: number words, optionally corrected ("..., sorry, I mean
 * ..."), with the words callers say around a number allowed before and after them only, so no
 * filler splits a number.
 */
export function numberGrammar(): string {
  return [
    "#JSGF V1.0;",
    "grammar number;",
    "public <window> = <edge>* <digits> (<correction> <digits>)* <edge>*;",
    "<digits> = <digit>+;",
    `<digit> = ${NUMBER_WORDS.join(" | ")};`,
    `<correction> = ${CORRECTIONS.join(" | ")};`,
    `<edge> = ${EDGE_WORDS.join(" | ")};`,
    "",
  ].join("\n");
}

/**
 * `words` with each window's number taken from the second pass where the first pass heard other
 * words: the second-pass words from its first number word to its last (times relative to the
 * window's start) take the place of the first-pass words whose middle falls in that stretch,
 * except that each number word the first pass heard there stands. The second pass only relabels
 * what the first heard as other words: a second-pass word counts only if its middle falls inside
 * one of those, never inside a number word the first pass heard (the grammar, which must explain
 * every sound with a number word, splits a long "three" into "three eight") nor in a pause between
 * words (where it hears "eight" in the breath after a comma). The words the grammar allowed
 * around the number are dropped too, so the first pass's words there stay; a window whose second
 * pass heard no number keeps the first pass's words.
 *
 * Confidence follows agreement between the passes: a first-pass number word keeps its own; a
 * second-pass word that relabels a first-pass word is no surer than the grammar's posterior nor
 * than the first pass's doubt about the word it replaces (one minus that word's posterior), since
 * a grammar that allows only numbers finds one in any sound ({@link disputed}).
 */
export function replaceWindows(
  words: readonly TranscriptWord[],
  decoded: readonly { window: NumberWindow; words: readonly TranscriptWord[] }[],
): TranscriptWord[] {
  let result = [...words];
  for (const { window, words: found } of decoded) {
    const first = found.findIndex((word) => DIGIT_WORDS.has(word.word));
    const last = found.findLastIndex((word) => DIGIT_WORDS.has(word.word));
    if (first === -1) continue;
    const heard = found.slice(first, last + 1).map((word) => ({
      ...word,
      startMs: word.startMs + window.startMs,
      endMs: word.endMs + window.startMs,
    }));
    const startMs = (heard[0] as TranscriptWord).startMs;
    const endMs = (heard.at(-1) as TranscriptWord).endMs;
    const inside = result.filter((word) => middle(word) >= startMs && middle(word) <= endMs);
    const kept = inside.filter((word) => SEED_WORDS.has(word.word));
    const replaced = inside.filter((word) => !SEED_WORDS.has(word.word));
    const added = heard
      .filter((word) => covers(replaced, middle(word)) && !covers(kept, middle(word)))
      .map((word) => disputed(word, replaced));
    const number = [...kept, ...added].sort((a, b) => a.startMs - b.startMs);
    result = [
      ...result.filter((word) => middle(word) < startMs),
      ...number,
      ...result.filter((word) => middle(word) > endMs),
    ];
  }
  return inOrder(result);
}

/**
 * A second-pass word that took the place of `replaced` first-pass words, its confidence lowered to
 * one minus the posterior of the first-pass word under its middle: the passes disagree there, and
 * the surer the first pass was of its own word, the less the relabel is worth. A word with no
 * confidence on either side keeps what it has.
 *
 * @example
 * disputed({ word: "five", startMs: 0, endMs: 300, confidence: 0.9 }, [{ word: "fight", startMs: 0, endMs: 320, confidence: 0.7 }]);
 * // { word: "five", startMs: 0, endMs: 300, confidence: 0.3 } (about)
 */
function disputed(word: TranscriptWord, replaced: readonly TranscriptWord[]): TranscriptWord {
  const under = replaced.find((other) => middle(word) >= other.startMs && middle(word) <= other.endMs);
  if (under?.confidence === undefined) return word;
  const doubt = 1 - under.confidence;
  return { ...word, confidence: Math.min(word.confidence ?? doubt, doubt) };
}

const middle = (word: TranscriptWord) => (word.startMs + word.endMs) / 2;
const covers = (words: readonly TranscriptWord[], ms: number) =>
  words.some((word) => ms >= word.startMs && ms <= word.endMs);

/** The words with each one's start moved to no earlier than the previous one's end, as a transcript's are. */
export function inOrder(words: readonly TranscriptWord[]): TranscriptWord[] {
  let previousEnd = 0;
  return words.map((word) => {
    const startMs = Math.max(word.startMs, previousEnd);
    previousEnd = Math.max(word.endMs, startMs);
    return startMs === word.startMs && previousEnd === word.endMs
      ? word
      : { ...word, startMs, endMs: previousEnd };
  });
}
