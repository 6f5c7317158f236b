import { isNumberWord } from "./digits";

/** A value found in the transcript, with the tokens it came from. */
export interface Mention {
  value: string;
  /** Index of the first token. */
  start: number;
  /** Index after the last token. */
  end: number;
}

/** The days of the week, as transcripts spell them. */
export const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

const HOURS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const MINUTE_TEENS: Readonly<Record<string, number>> = {
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
};
const MINUTE_TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fifty: 50 };
/** "one" .. "nine": the hours below ten. */
const UNITS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(HOURS).filter(([, hour]) => hour < 10),
);
/** Words that put a bare hour ("at four") in a time. */
const TIME_CUES = new Set(["at", "around", "by", "after", "before", "until", "till", "from"]);

/**
 * Days of the week mentioned, in order, as "Thursday"; a day right after "not" ("Thursday, not
 * Friday") is left out.
 */
export function findDays(tokens: readonly string[]): Mention[] {
  const days: Mention[] = [];
  tokens.forEach((token, index) => {
    if (DAYS.includes(token) && tokens[index - 1] !== "not") {
      days.push({ value: token[0]?.toUpperCase() + token.slice(1), start: index, end: index + 1 });
    }
  });
  return days;
}

/**
 * Clock times mentioned, in order: "three thirty" -> "3:30", "three p m" -> "3:00 pm", "ten
 * o'clock" -> "10:00", "noon" -> "12:00 pm", "3:30pm" -> "3:30 pm", and a bare hour after "at",
 * "around", "by" ... ("at four" -> "4:00"). An hour with a number word right before or after it is
 * part of a number, not a time ("call me at five five five ...", "three sixty six twelve").
 *
 * @example
 * findTimes(tokenize("Thursday at three thirty instead")); // [{ value: "3:30", start: 2, end: 4 }]
 */
export function findTimes(tokens: readonly string[]): Mention[] {
  const times: Mention[] = [];
  for (let index = 0; index < tokens.length; index++) {
    const time = timeAt(tokens, index);
    if (time) {
      times.push(time);
      index = time.end - 1;
    }
  }
  return times;
}

function timeAt(tokens: readonly string[], start: number): Mention | undefined {
  const token = tokens[start] ?? "";
  if (token === "noon" || token === "midday") return { value: "12:00 pm", start, end: start + 1 };

  const clock = /^(\d{1,2}):([0-5]\d)$/.exec(token);
  const hour = clock ? Number(clock[1]) : (HOURS[token] ?? numeralHour(token));
  if (hour === undefined || hour > 23) return undefined;
  let end = start + 1;
  let minutes = clock ? Number(clock[2]) : undefined;
  let spelledMinutes = clock !== null;
  if (minutes === undefined) {
    const spelled = minutesAt(tokens, end);
    if (spelled) {
      minutes = spelled.minutes;
      end = spelled.end;
      spelledMinutes = true;
    }
  }
  const meridiem = meridiemAt(tokens, end);
  if (meridiem) end = meridiem.end;

  const cued = TIME_CUES.has(tokens[start - 1] ?? "");
  if (!spelledMinutes && !meridiem && !cued) return undefined;
  if (isNumberWord(tokens[start - 1]) || isNumberWord(tokens[end])) return undefined;
  const value = `${hour}:${String(minutes ?? 0).padStart(2, "0")}${meridiem ? ` ${meridiem.value}` : ""}`;
  return { value, start, end };
}

function numeralHour(token: string): number | undefined {
  return /^\d{1,2}$/.test(token) && Number(token) >= 1 && Number(token) <= 12 ? Number(token) : undefined;
}

function minutesAt(tokens: readonly string[], index: number): { minutes: number; end: number } | undefined {
  const token = tokens[index] ?? "";
  if (token === "o'clock" || token === "oclock") return { minutes: 0, end: index + 1 };
  const teen = MINUTE_TEENS[token];
  if (teen !== undefined) return { minutes: teen, end: index + 1 };
  const unit = UNITS[tokens[index + 1] ?? ""];
  const tens = MINUTE_TENS[token];
  if (tens !== undefined) {
    return unit === undefined ? { minutes: tens, end: index + 1 } : { minutes: tens + unit, end: index + 2 };
  }
  if (token === "oh" && unit !== undefined) return { minutes: unit, end: index + 2 };
  if (/^[0-5]\d$/.test(token)) return { minutes: Number(token), end: index + 1 };
  return undefined;
}

function meridiemAt(tokens: readonly string[], index: number): { value: string; end: number } | undefined {
  const token = tokens[index];
  if (token === "am" || token === "pm") return { value: token, end: index + 1 };
  if ((token === "a" || token === "p") && tokens[index + 1] === "m")
    return { value: `${token}m`, end: index + 2 };
  if (tokens[index] === "in" && tokens[index + 1] === "the") {
    const part = tokens[index + 2];
    if (part === "morning") return { value: "am", end: index + 3 };
    if (part === "afternoon" || part === "evening") return { value: "pm", end: index + 3 };
  }
  return undefined;
}
