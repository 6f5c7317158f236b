import type { ReferenceLengths, TranscriptWord } from "@voxtrail/core";
import { findDigitRuns } from "../reasoning/digits";
import {
  DIGIT_NAMES,
  DIGIT_WORDS,
  EDGE_WORDS,
  inOrder,
  type NumberWindow,
  SEED_WORDS,
  TEENS,
  TENS,
} from "./number-windows";

/** Fewest and most digits a reference length may have: one digit short must still be a number. */
export const REFERENCE_DIGITS = { min: 2, max: 20 } as const;

/** A number to decode again: its stretch, the kind of number, and the digits it must have. */
export interface LengthRefit extends NumberWindow {
  kind: "phone" | keyof ReferenceLengths;
  digits: number;
}

/** Digits of a phone number as callers here say it (area code, exchange, line). */
const PHONE_DIGITS = 10;
/**
 * Digit counts a phone number is heard with when one or two of its 10 digits were dropped ("four
 * one oh" heard as "one oh") or one was added: such a number reaches no one, so it is worth
 * decoding again as 10 digits.
 */
const NEAR_PHONE_LENGTHS = new Set([8, 9, 11]);
/** Words just before a number that announce a phone number ("call me at", "call me back", "my number is"). */
const PHONE_CUES = new Set(["at", "me", "back", "number", "reach"]);
/** Words just before a number that announce one of the business's numbers. */
const REFERENCE_CUES: readonly (keyof ReferenceLengths)[] = ["order", "account"];
/** How many words before a window are read for its cue. */
const CUE_WORDS_BEFORE = 4;
/** Words that say a number is being corrected: two numbers, not one too long. */
const CORRECTION_WORDS = new Set(["sorry", "mean", "wait", "actually"]);
/** Longest pause before the word after a window that the refit still takes in ("aged" for "eight eight"). */
const NEXT_WORD_REACH_MS = 1000;

/**
 * The stretches of `words` (as the number pass left them) to decode again with a grammar of the
 * right number of digits ({@link lengthGrammar}):
 * - a number announced as a phone number (a cue such as "at" or "number" among the four words
 *   before, and no "order" or "account") with 8, 9 or 11 digits, as 10 digits;
 * - with `references`, a number announced as an order or account number (the last such cue among
 *   the four words before) one digit short or long of that kind's length, as that many digits.
 *
 * Digits are counted as the reasoner reads them (across a word the recogniser put between digits,
 * such as "two no two"); a window with a correction in it holds two numbers, not one too long, and
 * is left alone. Each stretch reaches on to the end of the word after the window, if that starts
 * within 1 s, since the first pass may have heard the last digits as a word ("seven seven aged").
 *
 * @example
 * numbersToRefit(words("call me at five five five one oh seven seven eight eight thanks"), windows);
 * // [{ kind: "phone", digits: 10, ... the window, to the end of "thanks" }]: 9 digits heard
 * numbersToRefit(words("about order four four nine"), windows, { order: 4 });
 * // [{ kind: "order", digits: 4, ... }]: 3 digits heard
 */
export function numbersToRefit(
  words: readonly TranscriptWord[],
  windows: readonly NumberWindow[],
  references: ReferenceLengths = {},
): LengthRefit[] {
  return windows.flatMap((window) => {
    const inside = words.filter((word) => middle(word) >= window.startMs && middle(word) <= window.endMs);
    if (inside.some((word) => CORRECTION_WORDS.has(word.word))) return [];
    const before = words.filter((word) => middle(word) < window.startMs).slice(-CUE_WORDS_BEFORE);
    const wanted = wantedLength(before, references);
    if (wanted === undefined) return [];
    const heard = findDigitRuns(inside.map((word) => word.word)).reduce((n, run) => n + run.digits.length, 0);
    if (!wanted.near.has(heard)) return [];
    const next = words.find((word) => middle(word) > window.endMs);
    const reaches = next !== undefined && next.startMs - window.endMs <= NEXT_WORD_REACH_MS;
    const endMs = reaches ? Math.max(window.endMs, next.endMs) : window.endMs;
    return [{ startMs: window.startMs, endMs, kind: wanted.kind, digits: wanted.digits }];
  });
}

/** The kind and length the cue words `before` a number announce, and the lengths worth a refit. */
function wantedLength(
  before: readonly TranscriptWord[],
  references: ReferenceLengths,
): { kind: LengthRefit["kind"]; digits: number; near: ReadonlySet<number> } | undefined {
  const cue = before.findLast((word) => (REFERENCE_CUES as readonly string[]).includes(word.word));
  if (cue !== undefined) {
    const kind = cue.word as keyof ReferenceLengths;
    const digits = references[kind];
    return digits === undefined ? undefined : { kind, digits, near: new Set([digits - 1, digits + 1]) };
  }
  if (!before.some((word) => PHONE_CUES.has(word.word))) return undefined;
  return { kind: "phone", digits: PHONE_DIGITS, near: NEAR_PHONE_LENGTHS };
}

/** The number grammar's edge words, less the cues of the business's numbers. */
const PHONE_EDGE_WORDS = EDGE_WORDS.filter((word) => !(REFERENCE_CUES as readonly string[]).includes(word));
const alternatives = (words: readonly string[]) => words.join(" | ");
/** The grammar's rule for a group of 1 to 4 digits. */
const GROUP_RULES = ["<digit>", "<pair>", "<three>", "<four>"];

/**
 * How callers group `digits` digits: up to 4 in one group, longer numbers in threes from the
 * front with the last group 2 to 4 (10 digits: 3, 3, 4, as a phone number is said).
 */
export function digitGroups(digits: number): number[] {
  return digits <= 4 ? [digits] : [3, ...digitGroups(digits - 3)];
}

/**
 * The JSGF grammar of a number of exactly `refit.digits` digits ({@link digitGroups}), each group
 * one digit at a time or in pairs ("fifty five", "twelve", "double five"), with a few words
 * allowed before and after (for a phone number, not "order" or "account").
 *
 * @example
 * lengthGrammar({ kind: "phone", digits: 10 }); // "... public <window> = <edge>* <three> <three> <four> <edge>*; ..."
 */
export function lengthGrammar(refit: Pick<LengthRefit, "kind" | "digits">): string {
  const groups = digitGroups(refit.digits).map((size) => GROUP_RULES[size - 1]);
  const edges = refit.kind === "phone" ? PHONE_EDGE_WORDS : EDGE_WORDS;
  return [
    "#JSGF V1.0;",
    `grammar ${refit.kind};`,
    `public <window> = <edge>* ${groups.join(" ")} <edge>*;`,
    "<four> = <pair> <pair> | <digit> <three>;",
    "<three> = <digit> <pair> | <pair> <digit> | triple <digit>;",
    "<pair> = <digit> <digit> | double <digit> | <teen> | <tens> [<nonzero>];",
    `<digit> = ${alternatives(DIGIT_NAMES)};`,
    `<nonzero> = ${alternatives(DIGIT_NAMES.filter((word) => word !== "zero" && word !== "oh"))};`,
    `<teen> = ${alternatives(TEENS)};`,
    `<tens> = ${alternatives(TENS)};`,
    `<edge> = ${alternatives(edges)};`,
    "",
  ].join("\n");
}

/**
 * `words` with the number the refit heard in `window` (times relative to its start): its digit
 * words take the place of the number words in the window and of any other word whose middle falls
 * between its first digit and its last ("aged" heard for "eight eight"). Other words in the window
 * stay, and the words the grammar allowed around the number are dropped. Unchanged when the refit
 * heard no digit.
 *
 * A refit happens because the number came out the wrong length, so the grammar's posterior alone
 * says nothing of whether it is right: each refit digit is no surer than the least sure word it
 * replaces.
 */
export function replaceNumber(
  words: readonly TranscriptWord[],
  window: NumberWindow,
  refit: readonly TranscriptWord[],
): TranscriptWord[] {
  const digits = refit
    .filter((word) => DIGIT_WORDS.has(word.word))
    .map((word) => ({ ...word, startMs: word.startMs + window.startMs, endMs: word.endMs + window.startMs }));
  const first = digits[0];
  const last = digits.at(-1);
  if (!first || !last) return [...words];
  const inWindow = (word: TranscriptWord) => middle(word) >= window.startMs && middle(word) <= window.endMs;
  const replaced = (word: TranscriptWord) =>
    inWindow(word) &&
    (SEED_WORDS.has(word.word) || (middle(word) >= first.startMs && middle(word) <= last.endMs));
  const kept = words.filter((word) => !replaced(word));
  const doubts = words
    .filter(replaced)
    .flatMap((word) => (word.confidence === undefined ? [] : [word.confidence]));
  const floor = doubts.length > 0 ? Math.min(...doubts) : undefined;
  const capped =
    floor === undefined
      ? digits
      : digits.map((word) => ({ ...word, confidence: Math.min(word.confidence ?? floor, floor) }));
  return inOrder([...kept, ...capped].sort((a, b) => a.startMs - b.startMs));
}

const middle = (word: TranscriptWord) => (word.startMs + word.endMs) / 2;
