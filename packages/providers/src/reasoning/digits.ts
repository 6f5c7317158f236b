/** Digit words, as callers say numbers one digit at a time. */
const DIGIT_WORDS: Readonly<Record<string, string>> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
};

/**
 * Words a recogniser writes for a digit it heard ("four to seven when" for "four two seven one"),
 * and "oh" (or pocketsphinx's "o") for zero: digits only next to a certain digit, never on their own.
 */
const HOMOPHONES: Readonly<Record<string, string>> = {
  to: "2",
  too: "2",
  for: "4",
  won: "1",
  when: "1",
  oh: "0",
  o: "0",
};

/**
 * Homophones too common as words to trust beside one digit ("one of them"): digits only between
 * two certain digits ("four one of seven" for "four one oh seven").
 */
const BETWEEN_DIGITS: Readonly<Record<string, string>> = { of: "0" };

const TEENS: Readonly<Record<string, string>> = {
  ten: "10",
  eleven: "11",
  twelve: "12",
  thirteen: "13",
  fourteen: "14",
  fifteen: "15",
  sixteen: "16",
  seventeen: "17",
  eighteen: "18",
  nineteen: "19",
};

const TENS: Readonly<Record<string, string>> = {
  twenty: "2",
  thirty: "3",
  forty: "4",
  fifty: "5",
  sixty: "6",
  seventy: "7",
  eighty: "8",
  ninety: "9",
};

const REPEATS: Readonly<Record<string, number>> = { double: 2, triple: 3 };

/** One spoken group of digits: "five", "double five", "fifty five", "4271", or a homophone. */
interface DigitGroup {
  start: number;
  /** Index after the group's last token. */
  end: number;
  digits: string;
  /** A homophone ("to", "for", ...): a digit only next to a certain group. */
  uncertain: boolean;
  /** A homophone that is a digit only between two certain groups ("of"). */
  between?: boolean;
}

/** A run of digits spoken without other words between them. */
export interface DigitRun {
  /** Index of the run's first token. */
  start: number;
  /** Index after the run's last token. */
  end: number;
  digits: string;
  /** The run's groups in order, homophones marked `uncertain`. */
  groups: readonly Pick<DigitGroup, "digits" | "uncertain">[];
}

/** Whether a token is certainly a digit: a digit word ("five") or a numeral ("4271"). */
export function isDigitWord(token: string | undefined): boolean {
  return token !== undefined && (token in DIGIT_WORDS || /^\d+$/.test(token));
}

/**
 * Whether a token is a number word of any kind: a digit word, a numeral, a teen or a tens word
 * ("sixty"), or "oh"/"o". A clock time next to one is part of a spoken number ("three sixty six
 * twelve" is not 6:12).
 */
export function isNumberWord(token: string | undefined): boolean {
  return (
    token !== undefined &&
    (isDigitWord(token) || token in TEENS || token in TENS || token === "oh" || token === "o")
  );
}

/**
 * Finds the runs of spoken digits in `tokens`, skipping indexes in `claimed` (words already used,
 * e.g. a time). Digit words, numerals, "double"/"triple" + digit ("double oh" -> 00), teens and
 * tens ("fifty five" -> 55) count. Homophones ("to"/"too" -> 2, "for" -> 4, "won"/"when" -> 1,
 * "oh"/"o" -> 0) count only when the group next to them is a certain digit, so "when it arrived"
 * stays words while "seven when" ends a number; "of" -> 0 only between two certain digits.
 *
 * @example
 * findDigitRuns(tokenize("order number four to seven when it arrived")).map((run) => run.digits); // ["4271"]
 */
export function findDigitRuns(
  tokens: readonly string[],
  claimed: ReadonlySet<number> = new Set(),
): DigitRun[] {
  const groups: DigitGroup[] = [];
  for (let index = 0; index < tokens.length; ) {
    const group = claimed.has(index) ? undefined : groupAt(tokens, index, claimed);
    if (group) groups.push(group);
    index = group ? group.end : index + 1;
  }
  const adjacentCertain = (a: DigitGroup | undefined, b: DigitGroup | undefined) =>
    a !== undefined && b !== undefined && (a.end === b.start || b.end === a.start) && !b.uncertain;
  const kept = groups.filter((group, i) => {
    if (!group.uncertain) return true;
    const [before, after] = [adjacentCertain(group, groups[i - 1]), adjacentCertain(group, groups[i + 1])];
    return group.between ? before && after : before || after;
  });

  const runs: DigitRun[] = [];
  for (const group of kept) {
    const last = runs.at(-1);
    const entry = { digits: group.digits, uncertain: group.uncertain };
    if (last && last.end === group.start) {
      runs[runs.length - 1] = {
        ...last,
        end: group.end,
        digits: last.digits + group.digits,
        groups: [...last.groups, entry],
      };
    } else {
      runs.push({ start: group.start, end: group.end, digits: group.digits, groups: [entry] });
    }
  }
  return runs;
}

/**
 * The run's digits cut to one of `lengths`, dropping only what may not belong to it: homophones at
 * either end ("... six seven when" -> without the "when") and the country code 1 before ten digits. Prefers the
 * fewest drops. When no such cut fits, one of two "oh"s in a row may go: a recogniser often hears
 * one short "oh" twice ("four one oh oh seven"), and a number really said with two fits as heard.
 * `undefined` when no length fits.
 *
 * @example
 * fitDigits(run, [10, 7]); // "5551234567" for "five five five one two three four five six seven when"
 */
export function fitDigits(run: DigitRun, lengths: readonly number[]): string | undefined {
  const fitted = fitGroups(run.groups, lengths);
  if (fitted !== undefined) return fitted;
  for (let index = 1; index < run.groups.length; index++) {
    if (!isHeardOh(run.groups[index - 1]) || !isHeardOh(run.groups[index])) continue;
    const once = fitGroups(run.groups.toSpliced(index, 1), lengths);
    if (once !== undefined) return once;
  }
  return undefined;
}

/**
 * Every reading of the run that drops only homophones at its ends, as heard first, then by fewest
 * drops: what the caller may have said when the words around a number were heard as digits
 * ("seven three one six for" for "seven three one six, for ...").
 *
 * @example
 * edgeReadings(run); // ["73164", "7316"] for "seven three one six for"
 */
export function edgeReadings(run: DigitRun): string[] {
  return [...new Set(edgeCuts(run.groups))];
}

/** A zero heard as a homophone ("oh", "o", "of"), not said as "zero". */
const isHeardOh = (group: Pick<DigitGroup, "digits" | "uncertain"> | undefined) =>
  group?.uncertain === true && group.digits === "0";

function fitGroups(
  groups: readonly Pick<DigitGroup, "digits" | "uncertain">[],
  lengths: readonly number[],
): string | undefined {
  for (const digits of edgeCuts(groups)) {
    if (lengths.includes(digits.length)) return digits;
    if (digits.length === 11 && digits.startsWith("1") && lengths.includes(10)) return digits.slice(1);
  }
  return undefined;
}

/** The groups' digits with none, then more and more, of the homophones at either end dropped. */
function* edgeCuts(groups: readonly Pick<DigitGroup, "digits" | "uncertain">[]): Generator<string> {
  const leading = countUncertain(groups);
  const trailing = countUncertain([...groups].reverse());
  for (let drops = 0; drops <= leading + trailing; drops++) {
    for (let fromStart = 0; fromStart <= Math.min(drops, leading); fromStart++) {
      const fromEnd = drops - fromStart;
      if (fromEnd > trailing || fromStart + fromEnd >= groups.length) continue;
      yield joinDigits(groups.slice(fromStart, groups.length - fromEnd));
    }
  }
}

const joinDigits = (groups: readonly Pick<DigitGroup, "digits">[]) =>
  groups.map((group) => group.digits).join("");

function countUncertain(groups: readonly Pick<DigitGroup, "uncertain">[]): number {
  let count = 0;
  while (count < groups.length && groups[count]?.uncertain) count++;
  return count;
}

function groupAt(
  tokens: readonly string[],
  index: number,
  claimed: ReadonlySet<number>,
): DigitGroup | undefined {
  const token = tokens[index] ?? "";
  const next = claimed.has(index + 1) ? undefined : tokens[index + 1];
  const certain = (digits: string, end: number): DigitGroup => ({
    start: index,
    end,
    digits,
    uncertain: false,
  });

  const repeat = REPEATS[token];
  const repeated =
    next === undefined ? undefined : (DIGIT_WORDS[next] ?? (next === "oh" || next === "o" ? "0" : undefined));
  if (repeat !== undefined && repeated !== undefined) return certain(repeated.repeat(repeat), index + 2);

  const digit = DIGIT_WORDS[token];
  if (digit !== undefined) return certain(digit, index + 1);
  if (/^\d+$/.test(token)) return certain(token, index + 1);
  const teen = TEENS[token];
  if (teen !== undefined) return certain(teen, index + 1);
  const tens = TENS[token];
  if (tens !== undefined) {
    const unit = next === undefined ? undefined : DIGIT_WORDS[next];
    return unit !== undefined && unit !== "0"
      ? certain(tens + unit, index + 2)
      : certain(`${tens}0`, index + 1);
  }
  const homophone = HOMOPHONES[token];
  if (homophone !== undefined) return { start: index, end: index + 1, digits: homophone, uncertain: true };
  const between = BETWEEN_DIGITS[token];
  if (between !== undefined)
    return { start: index, end: index + 1, digits: between, uncertain: true, between: true };
  return undefined;
}
