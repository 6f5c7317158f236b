/**
 * Numbers as callers say them and transcribers write them, found in running text with their
 * character spans: numerals ("4271", "555-123-4567"), digit words ("five oh three four"), tens
 * and teens ("forty four oh nine"), "double"/"triple", cardinals with "hundred"/"thousand"
 * ("four thousand two hundred seventy one"), Spanish digit, teen and tens words ("cinco cinco
 * cinco", "cuarenta y dos setenta y uno", "veintidós"; accents are dropped first; in a Spanish
 * text "once" beside another number word), and the homophones a recogniser writes for a digit
 * ("four to seven when") when they stand next to a certain one. Pure: the redactor (redactor.ts) decides what a run of them means.
 */

/** One word of the text with where it is. */
export interface TextToken {
  /** Lower case. */
  word: string;
  start: number;
  end: number;
}

/** A run of number words said together (nothing but spaces and punctuation between them). */
export interface NumberRun {
  /** Index of the run's first token. */
  first: number;
  /** Index of the run's last token. */
  last: number;
  /** Character span in the text. */
  start: number;
  end: number;
  /** The digits the run says, in order ("forty four oh nine" -> "4409"). */
  digits: string;
}

const DIGITS: Readonly<Record<string, string>> = {
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
  // es-US digit words.
  cero: "0",
  uno: "1",
  dos: "2",
  tres: "3",
  cuatro: "4",
  cinco: "5",
  seis: "6",
  siete: "7",
  ocho: "8",
  nueve: "9",
};

/** Words a recogniser writes for a digit, or zero as "oh": a digit only next to a certain number word. */
const HOMOPHONES: Readonly<Record<string, string>> = {
  oh: "0",
  o: "0",
  to: "2",
  too: "2",
  for: "4",
  won: "1",
  when: "1",
};

const TEENS: Readonly<Record<string, number>> = {
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  // es-US words for 10 to 29 but 11 ("once" is an English word too) and 20 (a tens word), accents dropped.
  diez: 10,
  doce: 12,
  trece: 13,
  catorce: 14,
  quince: 15,
  dieciseis: 16,
  diecisiete: 17,
  dieciocho: 18,
  diecinueve: 19,
  veintiuno: 21,
  veintidos: 22,
  veintitres: 23,
  veinticuatro: 24,
  veinticinco: 25,
  veintiseis: 26,
  veintisiete: 27,
  veintiocho: 28,
  veintinueve: 29,
};

/**
 * Spanish number words that are English words too ("once", 11): numbers only in a Spanish text,
 * and there only beside a certain number word, as a homophone is.
 */
const SPANISH_ONLY: Readonly<Record<string, number>> = { once: 11 };

const TENS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fourty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  veinte: 20,
  treinta: 30,
  cuarenta: 40,
  cincuenta: 50,
  sesenta: 60,
  setenta: 70,
  ochenta: 80,
  noventa: 90,
};

/** The word that joins a Spanish tens word to its unit ("cuarenta y dos"): a number word only there. */
const TENS_AND = "y";

const SCALES: Readonly<Record<string, number>> = { hundred: 100, thousand: 1000 };
const REPEATS: Readonly<Record<string, number>> = { double: 2, triple: 3 };

/** What may stand between two words of one spoken number: spaces and light punctuation, no clause break. */
const JOINER = /^[\s,.\-\u2013\u2014/()#]*$/;

/**
 * The words of `text`, lower-cased, with their spans. Letters (any script), digits and inner
 * apostrophes make a word; a clock time ("3:30") is one word, so it is never read as digits.
 *
 * @example
 * tokenizeWithSpans("Call 555-1234.").map((token) => token.word); // ["call", "555", "1234"]
 */
export function tokenizeWithSpans(text: string): TextToken[] {
  const tokens: TextToken[] = [];
  for (const match of text.matchAll(/\d{1,2}:\d{2}|[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu)) {
    const start = match.index ?? 0;
    // Accents dropped, so a record's "Maria Lopez" finds a transcript's "María López".
    const word = match[0].normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
    tokens.push({ word, start, end: start + match[0].length });
  }
  return tokens;
}

/** Whether a word is certainly part of a number (not a homophone). */
function isCertain(word: string): boolean {
  return (
    /^\d+$/.test(word) || word in DIGITS || word in TEENS || word in TENS || word in SCALES || word in REPEATS
  );
}

/**
 * The runs of number words in `tokens` (from {@link tokenizeWithSpans} over `text`). A homophone
 * ("oh", "to", "for", "won", "when") joins a run only beside a certain number word; "double"
 * and "triple" only before a digit; "hundred"/"thousand" only after one. In a text of a Spanish
 * `language` ("es", "es-US"), "once" (11) joins a run as a homophone does; in any other, never.
 *
 * @example
 * const text = "order four to seven when it came";
 * findNumberRuns(text, tokenizeWithSpans(text)).map((run) => run.digits); // ["4271"]
 */
export function findNumberRuns(text: string, tokens: readonly TextToken[], language = "en"): NumberRun[] {
  const spanish = language.toLowerCase().startsWith("es");
  const joined = (a: number, b: number) => {
    const left = tokens[a];
    const right = tokens[b];
    return left !== undefined && right !== undefined && JOINER.test(text.slice(left.end, right.start));
  };
  const certain = tokens.map((token) => isCertain(token.word));
  const member = tokens.map((token, index) => {
    if (certain[index]) return true;
    if (token.word === TENS_AND)
      return (
        (tokens[index - 1]?.word ?? "") in TENS &&
        unitOf(tokens[index + 1]?.word) !== undefined &&
        joined(index - 1, index) &&
        joined(index, index + 1)
      );
    if (!(token.word in HOMOPHONES) && !(spanish && token.word in SPANISH_ONLY)) return false;
    return (
      (certain[index - 1] === true && joined(index - 1, index)) ||
      (certain[index + 1] === true && joined(index, index + 1))
    );
  });
  const runs: NumberRun[] = [];
  for (let index = 0; index < tokens.length; ) {
    if (!member[index]) {
      index++;
      continue;
    }
    let last = index;
    while (member[last + 1] && joined(last, last + 1)) last++;
    const words = tokens.slice(index, last + 1).map((token) => token.word);
    const digits = spokenDigits(words);
    const first = tokens[index] as TextToken;
    const end = tokens[last] as TextToken;
    if (digits.length > 0) runs.push({ first: index, last, start: first.start, end: end.end, digits });
    index = last + 1;
  }
  return runs;
}

/**
 * The digits a run of number words says. Digit by digit unless a scale word makes it a cardinal:
 * "five oh three four" -> "5034", "forty four oh nine" -> "4409", "double five" -> "55",
 * "forty" -> "40", "four thousand two hundred seventy one" -> "4271", "forty four hundred" -> "4400".
 *
 * @example
 * spokenDigits(["forty", "four", "oh", "nine"]); // "4409"
 */
export function spokenDigits(words: readonly string[]): string {
  let out = "";
  for (let index = 0; index < words.length; ) {
    const word = words[index] as string;
    const scaleAhead = cardinalLength(words, index);
    if (scaleAhead > 0) {
      out += String(cardinalValue(words.slice(index, index + scaleAhead)));
      index += scaleAhead;
    } else if (/^\d+$/.test(word)) {
      out += word;
      index++;
    } else if (word in DIGITS || word in HOMOPHONES) {
      out += DIGITS[word] ?? HOMOPHONES[word];
      index++;
    } else if (teenOf(word) !== undefined) {
      out += String(teenOf(word));
      index++;
    } else if (word in TENS) {
      const and = words[index + 1] === TENS_AND ? 1 : 0;
      const unit = unitOf(words[index + 1 + and]);
      out += unit !== undefined && unit > 0 ? String((TENS[word] ?? 0) + unit) : String(TENS[word]);
      index += unit !== undefined && unit > 0 ? 2 + and : 1 + and;
    } else if (word in REPEATS) {
      const next = words[index + 1];
      const digit = next === undefined ? undefined : (DIGITS[next] ?? HOMOPHONES[next]);
      if (digit !== undefined) {
        out += digit.repeat(REPEATS[word] ?? 1);
        index += 2;
      } else index++;
    } else index++;
  }
  return out;
}

/** A teen word's value ("once" too: {@link findNumberRuns} lets it into a run only in Spanish), or undefined. */
function teenOf(word: string): number | undefined {
  return TEENS[word] ?? SPANISH_ONLY[word];
}

/** A digit word's value (numerals of one digit too), or undefined. */
function unitOf(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  if (/^\d$/.test(word)) return Number(word);
  const digit = DIGITS[word];
  return digit === undefined ? undefined : Number(digit);
}

/** How many words from `index` make one cardinal with a scale word in it ("two hundred nine"); 0 if none does. */
function cardinalLength(words: readonly string[], index: number): number {
  let length = 0;
  let sawScale = false;
  let lastKind: "unit" | "teen" | "tens" | "scale" | undefined;
  for (let at = index; at < words.length; at++) {
    const word = words[at] as string;
    const kind =
      word in SCALES
        ? "scale"
        : teenOf(word) !== undefined
          ? "teen"
          : word in TENS
            ? "tens"
            : unitOf(word) !== undefined
              ? "unit"
              : undefined;
    if (kind === undefined) break;
    // Two plain digits in a row are said digit by digit: the cardinal ends before the second.
    if (kind === "unit" && (lastKind === "unit" || lastKind === "teen")) break;
    if (
      (kind === "tens" || kind === "teen") &&
      (lastKind === "tens" || lastKind === "teen" || lastKind === "unit")
    )
      break;
    if (kind === "scale") {
      if (lastKind === undefined || lastKind === "scale") break;
      sawScale = true;
    }
    lastKind = kind;
    length++;
  }
  return sawScale ? length : 0;
}

function cardinalValue(words: readonly string[]): number {
  let total = 0;
  let current = 0;
  for (const word of words) {
    const scale = SCALES[word];
    if (scale === 1000) {
      total += current * 1000;
      current = 0;
    } else if (scale === 100) current *= 100;
    else current += teenOf(word) ?? TENS[word] ?? unitOf(word) ?? 0;
  }
  return total + current;
}

/**
 * The ways a number may be said, for tests and checks that look for it in text: the digits, the
 * digits grouped as a phone number is written, and the digit words one by one (with "oh" and
 * "zero" for 0).
 *
 * @example
 * spokenForms("4409"); // ["4409", "four four zero nine", "four four oh nine", ...]
 */
export function spokenForms(digits: string): string[] {
  const names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
  const words = (zero: string) =>
    [...digits].map((digit) => (digit === "0" ? zero : names[Number(digit)])).join(" ");
  const forms = new Set([digits, words("zero"), words("oh")]);
  if (digits.length === 10) forms.add(`${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`);
  return [...forms];
}
