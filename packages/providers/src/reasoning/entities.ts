import type { Entities } from "@voxtrail/core";
import { type DigitRun, edgeReadings, findDigitRuns, fitDigits, isDigitWord } from "./digits";
import { findDays, findTimes } from "./schedule";
import { tokenize } from "./tokens";

type NumberKind = "orderNumber" | "accountNumber" | "callbackNumber";

/** Words that say what the number after them is; the nearest one before a number decides. */
const NUMBER_CUES: Readonly<Record<string, NumberKind>> = {
  order: "orderNumber",
  orders: "orderNumber",
  account: "accountNumber",
  call: "callbackNumber",
  reach: "callbackNumber",
  phone: "callbackNumber",
  cell: "callbackNumber",
  mobile: "callbackNumber",
  callback: "callbackNumber",
  text: "callbackNumber",
};
/**
 * Words allowed between a cue and its number: "order number is", "call me back at", "account no",
 * and "numbers" or "number's", as a recogniser writes "number is" said quickly.
 */
const CUE_GAP_WORDS = new Set(
  "number numbers number's no num is was it's its the my me back at on um uh and".split(" "),
);
const CUE_WINDOW = 5;
/** Most digits a correction may run past the number it corrects (see `correctedNumber`). */
const MAX_CORRECTION_OVERRUN = 2;
/** Words that announce a correction: the number after them replaces the last number given. */
const CORRECTION_CUES = new Set(["actually", "sorry", "mean", "wait", "correction", "rather", "oops"]);
const CORRECTION_WINDOW = 3;
/** Fewest digits an order or account number has ("order for two" is not order 42). */
const MIN_REFERENCE_DIGITS = 3;
/** Lengths of a phone number: with and without the area code. */
const PHONE_LENGTHS = [10, 7];

/** Words that end a caller's name ("this is Maria Lopez I am calling"). */
const NOT_NAMES = new Set(
  `i i'm im a an the about from with and um uh er just your my so again regarding in on at to for is it it's
  can was we you he she they there here not that this but oh hi hello hey yes no please sorry actually calling
  called call following checking returning still also really going have had has need want would could be
  ringing speaking trying leaving getting back up out of`.split(/\s+/),
);
/** How far into the message "this is NAME" is an introduction rather than "this is urgent". */
const INTRODUCTION_WINDOW = 8;

/** What {@link readEntities} finds: the entities, and the numbers no word could name the kind of. */
export interface EntityReading {
  entities: Entities;
  /**
   * Digit runs of at least three digits that no rule could place, in the order spoken: no cue
   * before them, or a cue they cannot be ("phone number is four four oh nine"), and not a phone
   * number's length. Maybe an order or account number whose cue was misheard; only the records
   * can tell which ({@link kindsFromRecords}). Each run is given as its readings: as heard, then
   * without the homophones at its ends ({@link edgeReadings}).
   */
  unnamed: string[][];
}

/**
 * Finds the entities in a transcript with deterministic rules; the transcript is only ever data.
 *
 * - Numbers are read from spoken digits ({@link findDigitRuns}): an order number after "order
 *   (number)", an account number after "account (number)", a callback number (7 or 10 digits)
 *   after "call me (back) at", "reach me at", "phone" ..., or any 7- or 10-digit run no order or
 *   account cue claims. A number right after a correction ("sorry", "actually", "I mean", "no
 *   wait") with no cue of its own replaces the last number the caller gave if it has as many
 *   digits ("order 4272, sorry, I mean 4271"); an order or account number's correction up to two
 *   digits longer is cut to its length.
 * - Day of the week and time ({@link findDays}, {@link findTimes}).
 * - The caller's name: up to two words after "my name is", or after "this is" near the start.
 * - For every entity the caller's last mention wins, so "Friday... actually, sorry, Thursday"
 *   gives Thursday.
 *
 * @example
 * extractEntities("this is maria lopez order number four to seven when call me back at five five five one two three four five six seven");
 * // { callerName: "Maria Lopez", orderNumber: "4271", callbackNumber: "5551234567" }
 */
export function extractEntities(text: string): Entities {
  return readEntities(text).entities;
}

/**
 * {@link extractEntities}, with the numbers it could not place kept apart.
 *
 * @example
 * readEntities("my phone number is four four oh nine thank you");
 * // { entities: {}, unnamed: [["4409"]] }
 */
export function readEntities(text: string): EntityReading {
  const tokens = tokenize(text);
  const entities: Entities = {};
  const unnamed: string[][] = [];

  const times = findTimes(tokens);
  const claimed = new Set(times.flatMap((time) => range(time.start, time.end)));
  let lastNumber: NumberKind | undefined;
  for (const run of findDigitRuns(tokens, claimed)) {
    const number =
      cuedNumber(tokens, run) ?? correctedNumber(tokens, run, lastNumber, entities) ?? uncuedNumber(run);
    if (number.digits === undefined) {
      const readings = edgeReadings(run).filter((digits) => digits.length >= MIN_REFERENCE_DIGITS);
      if (readings.length > 0) unnamed.push(readings);
      continue;
    }
    entities[number.kind] = number.digits;
    lastNumber = number.kind;
  }

  const day = findDays(tokens).at(-1);
  if (day) entities.day = day.value;
  const time = times.at(-1);
  if (time) entities.time = time.value;
  const callerName = findCallerName(tokens);
  if (callerName) entities.callerName = callerName;
  return { entities, unnamed };
}

interface SpokenNumber {
  kind: NumberKind;
  /** `undefined` when the run cannot be a number of this kind (a phone number of 9 digits). */
  digits: string | undefined;
}

/** The number a cue word names: the nearest cue before the run, looking back over gap words only. */
function cuedNumber(tokens: readonly string[], run: DigitRun): SpokenNumber | undefined {
  for (let index = run.start - 1; index >= Math.max(0, run.start - CUE_WINDOW); index--) {
    const token = tokens[index] ?? "";
    const kind = NUMBER_CUES[token];
    if (kind) return { kind, digits: read(run, kind) };
    if (!CUE_GAP_WORDS.has(token)) return undefined;
  }
  return undefined;
}

/**
 * A run right after a correction cue that reads as a new value of the last number given, same
 * length: a caller restates the whole number. A run up to {@link MAX_CORRECTION_OVERRUN} digits
 * longer is cut to that length, since the words after a correction are often heard as digits
 * ("seven three one six, the rug" as "seven three one six zero").
 */
function correctedNumber(
  tokens: readonly string[],
  run: DigitRun,
  lastNumber: NumberKind | undefined,
  entities: Entities,
): SpokenNumber | undefined {
  const corrects = tokens
    .slice(Math.max(0, run.start - CORRECTION_WINDOW), run.start)
    .some((token) => CORRECTION_CUES.has(token));
  if (!corrects || lastNumber === undefined) return undefined;
  const digits = read(run, lastNumber);
  const length = entities[lastNumber]?.length;
  if (digits === undefined || length === undefined) return undefined;
  if (digits.length === length) return { kind: lastNumber, digits };
  const overrun = digits.length - length;
  return lastNumber !== "callbackNumber" && overrun > 0 && overrun <= MAX_CORRECTION_OVERRUN
    ? { kind: lastNumber, digits: digits.slice(0, length) }
    : undefined;
}

/** A number nothing names: a callback number if it has a phone number's length. */
function uncuedNumber(run: DigitRun): SpokenNumber {
  return { kind: "callbackNumber", digits: read(run, "callbackNumber") };
}

function read(run: DigitRun, kind: NumberKind): string | undefined {
  if (kind === "callbackNumber") return fitDigits(run, PHONE_LENGTHS);
  return run.digits.length >= MIN_REFERENCE_DIGITS ? run.digits : undefined;
}

function findCallerName(tokens: readonly string[]): string | undefined {
  let name: string | undefined;
  tokens.forEach((token, index) => {
    const afterMyNameIs = token === "is" && tokens[index - 1] === "name" && tokens[index - 2] === "my";
    const introduction = token === "is" && tokens[index - 1] === "this" && index < INTRODUCTION_WINDOW;
    if (!afterMyNameIs && !introduction) return;
    const words: string[] = [];
    for (const word of tokens.slice(index + 1, index + 3)) {
      if (NOT_NAMES.has(word) || isDigitWord(word) || !/^[a-z][a-z'-]*$/.test(word)) break;
      words.push(word[0]?.toUpperCase() + word.slice(1));
    }
    if (words.length > 0) name = words.join(" ");
  });
  return name;
}

function range(start: number, end: number): number[] {
  return Array.from({ length: end - start }, (_, i) => start + i);
}
