import { describe, expect, test } from "vitest";
import { edgeReadings, findDigitRuns, fitDigits } from "../src/reasoning/digits";
import { findDays, findTimes } from "../src/reasoning/schedule";
import { tokenize } from "../src/reasoning/tokens";

const digitsIn = (text: string) => findDigitRuns(tokenize(text)).map((run) => run.digits);
const timesIn = (text: string) => findTimes(tokenize(text)).map((time) => time.value);

describe("tokenize", () => {
  test("lower-cases, breaks on punctuation, keeps numerals, clock times and am/pm", () => {
    expect(tokenize("Friday... actually, sorry: Thursday at 3:30pm? Call 555-123-4567, 9 a.m.")).toEqual(
      "friday actually sorry thursday at 3:30 pm call 555 123 4567 9 am".split(" "),
    );
  });
});

describe("findDigitRuns", () => {
  test("reads digit words, numerals, double/triple, teens and tens", () => {
    expect(digitsIn("five five five, one two three, four five six seven")).toEqual(["5551234567"]);
    expect(digitsIn("call 555-123-4567")).toEqual(["5551234567"]);
    expect(digitsIn("double five triple oh... double oh seven")).toEqual(["55000007"]);
    expect(digitsIn("forty two seventy one")).toEqual(["4271"]);
    expect(digitsIn("nineteen eighty")).toEqual(["1980"]);
  });

  test("homophones are digits next to a certain digit, words elsewhere", () => {
    expect(digitsIn("order number four to seven when it arrived")).toEqual(["4271"]);
    expect(digitsIn("one two one to thank you")).toEqual(["1212"]);
    expect(digitsIn("five oh two")).toEqual(["502"]);
    expect(digitsIn("I want to go when it is ready for you")).toEqual([]);
    expect(digitsIn("oh hi, when you get a chance")).toEqual([]);
  });

  test("pocketsphinx's 'o' is zero beside a digit; 'of' only between two digits", () => {
    expect(digitsIn("five five five nine o three sixty six twelve")).toEqual(["5559036612"]);
    expect(digitsIn("double o seven")).toEqual(["007"]);
    expect(digitsIn("five five five for one of seven seven eight eight")).toEqual(["5554107788"]);
    expect(digitsIn("one of them arrived, seven of the chairs")).toEqual(["1", "7"]);
    expect(digitsIn("the letter o is round")).toEqual([]);
  });

  test("words between digits split runs; claimed words are skipped", () => {
    expect(digitsIn("order four two seven one and call five five five")).toEqual(["4271", "555"]);
    const tokens = tokenize("three thirty five five five");
    expect(findDigitRuns(tokens, new Set([0, 1])).map((run) => run.digits)).toEqual(["555"]);
  });
});

describe("fitDigits", () => {
  const fit = (text: string) => {
    const [run] = findDigitRuns(tokenize(text));
    return run ? fitDigits(run, [10, 7]) : undefined;
  };

  test("keeps a run of an accepted length", () => {
    expect(fit("five five five one two three four five six seven")).toBe("5551234567");
    expect(fit("one two three four five six seven")).toBe("1234567");
  });

  test("drops homophones at the ends and a country code to fit", () => {
    expect(fit("five five five one two three four five six seven when you can")).toBe("5551234567");
    expect(fit("for five five five one two three four five six seven")).toBe("5551234567");
    expect(fit("one five five five one two three four five six seven")).toBe("5551234567");
  });

  test("never drops certain digits", () => {
    expect(fit("five five five one two three four five six")).toBeUndefined();
    expect(fit("five five five one two three four five six seven eight")).toBeUndefined();
  });

  test("drops one of two heard 'oh's only when the number is too long with both", () => {
    expect(fit("five five five four one oh oh seven seven eight eight")).toBe("5554107788");
    expect(fit("five five five two oh oh one two three four")).toBe("5552001234");
    expect(fit("five five five four one zero zero seven seven eight eight")).toBeUndefined();
    expect(fit("five five five four one oh seven oh seven eight eight")).toBeUndefined();
  });
});

describe("edgeReadings", () => {
  const readings = (text: string) => {
    const [run] = findDigitRuns(tokenize(text));
    return run ? edgeReadings(run) : [];
  };

  test("as heard, then without the homophones at either end, fewest drops first", () => {
    expect(readings("to seven three one six for")).toEqual(["273164", "27316", "73164", "7316"]);
    expect(readings("seven three one six")).toEqual(["7316"]);
    expect(readings("four to")).toEqual(["42", "4"]);
  });
});

describe("findTimes", () => {
  test("reads spoken and written times", () => {
    expect(timesIn("Thursday at three thirty instead")).toEqual(["3:30"]);
    expect(timesIn("around three p m or ten o'clock")).toEqual(["3:00 pm", "10:00"]);
    expect(timesIn("how about noon, or 3:30pm, or four forty five in the afternoon")).toEqual([
      "12:00 pm",
      "3:30 pm",
      "4:45 pm",
    ]);
    expect(timesIn("any time after four")).toEqual(["4:00"]);
  });

  test("an hour inside a spoken number is not a time", () => {
    expect(timesIn("call me back at five five five one two three four five six seven")).toEqual([]);
    expect(timesIn("my number is five five five three fifteen")).toEqual([]);
    expect(timesIn("I have four lamps")).toEqual([]);
  });
});

describe("findDays", () => {
  test("finds weekdays in order, except right after 'not'", () => {
    expect(findDays(tokenize("Friday... actually, Thursday, not Saturday")).map((day) => day.value)).toEqual([
      "Friday",
      "Thursday",
    ]);
  });
});
