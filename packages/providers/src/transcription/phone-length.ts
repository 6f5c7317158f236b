import type { TranscriptWord } from "@voxtrail/core";
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

/**
 * Digit counts a phone number is heard with when one or two of its 10 digits were dropped ("four
 * one oh" heard as "one oh") or one was added: such a number reaches no one, so it is worth
 * decoding again as 10 digits.
 */
const NEAR_PHONE_LENGTHS = new Set([8, 9, 11]);
/** Words just before a number that announce a phone number ("call me at", "call me back", "my number is"). */
const PHONE_CUES = new Set(["at", "me", "back", "number", "reach"]);
/** Words just before a number that announce another kind ("account number", "order number"). */
const OTHER_CUES = new Set(["account", "order"]);
/** How many words before a window are read for its cue. */
const CUE_WORDS_BEFORE = 4;
/** Words that say a number is being corrected: two numbers, not one too long. */
const CORRECTION_WORDS = new Set(["sorry", "mean", "wait", "actually"]);
/** Longest pause before the word after a window that the refit still takes in ("aged" for "eight eight"). */
const NEXT_WORD_REACH_MS = 1000;

/**
 * The stretches of `words` (as the number pass left them) to decode again as a phone number: each
 * number window announced as a phone number (a cue such as "at" or "number" among the four words
 * before, and no "account" or "order"), with no correction in it, and 8, 9 or 11 digits in all, as
 * the reasoner reads them (across a word the recogniser put between digits, such as "two no
 * two"). Each reaches on to the end of the word after the window, if that starts within 1 s,
 * since the first pass may have heard the last digits as a word ("seven seven aged").
 *
 * @example
 * phoneNumbersToRefit(words("call me at five five five one oh seven seven eight eight thanks"), windows);
 * // [the window, to the end of "thanks"]: 9 digits
 */
export function phoneNumbersToRefit(
  words: readonly TranscriptWord[],
  windows: readonly NumberWindow[],
): NumberWindow[] {
  return windows.flatMap((window) => {
    const inside = words.filter((word) => middle(word) >= window.startMs && middle(word) <= window.endMs);
    const before = words.filter((word) => middle(word) < window.startMs).slice(-CUE_WORDS_BEFORE);
    if (!said(before, PHONE_CUES) || said(before, OTHER_CUES) || said(inside, CORRECTION_WORDS)) return [];
    const runs = findDigitRuns(inside.map((word) => word.word));
    if (!NEAR_PHONE_LENGTHS.has(runs.reduce((n, run) => n + run.digits.length, 0))) return [];
    const next = words.find((word) => middle(word) > window.endMs);
    const reaches = next !== undefined && next.startMs - window.endMs <= NEXT_WORD_REACH_MS;
    return [{ startMs: window.startMs, endMs: reaches ? Math.max(window.endMs, next.endMs) : window.endMs }];
  });
}

const said = (words: readonly TranscriptWord[], set: ReadonlySet<string>) =>
  words.some((w) => set.has(w.word));

/** The number grammar's edge words, less the cues of other kinds of number. */
const PHONE_EDGE_WORDS = EDGE_WORDS.filter((word) => !OTHER_CUES.has(word));
const alternatives = (words: readonly string[]) => words.join(" | ");

/**
 * The JSGF grammar of a 10-digit phone number as callers group it: three digits, three, then
 * four, each group one digit at a time or in pairs ("fifty five", "twelve", "double five"), with a
 * few words allowed before and after.
 */
export function phoneGrammar(): string {
  return [
    "#JSGF V1.0;",
    "grammar phone;",
    "public <window> = <edge>* <three> <three> <four> <edge>*;",
    "<four> = <pair> <pair> | <digit> <three>;",
    "<three> = <digit> <pair> | <pair> <digit> | triple <digit>;",
    "<pair> = <digit> <digit> | double <digit> | <teen> | <tens> [<nonzero>];",
    `<digit> = ${alternatives(DIGIT_NAMES)};`,
    `<nonzero> = ${alternatives(DIGIT_NAMES.filter((word) => word !== "zero" && word !== "oh"))};`,
    `<teen> = ${alternatives(TEENS)};`,
    `<tens> = ${alternatives(TENS)};`,
    `<edge> = ${alternatives(PHONE_EDGE_WORDS)};`,
    "",
  ].join("\n");
}

/**
 * `words` with the phone number the refit heard in `window` (times relative to its start): its
 * digit words take the place of the number words in the window and of any other word whose
 * middle falls between its first digit and its last ("aged" heard for "eight eight"). Other words
 * in the window stay, and the words the grammar allowed around the number are dropped. Unchanged
 * when the refit heard no digit.
 */
export function replacePhoneNumber(
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
  return inOrder([...kept, ...digits].sort((a, b) => a.startMs - b.startMs));
}

const middle = (word: TranscriptWord) => (word.startMs + word.endMs) / 2;
