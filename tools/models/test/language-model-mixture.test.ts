import { describe, expect, test } from "vitest";
import { DomainNgrams } from "../language-model/domain-ngrams";
import type { NgramModel } from "../language-model/ngram-model";
import { mixModels } from "../language-model/static-mixture";

const DIGITS = "zero oh one two three four five six seven eight nine".split(" ");
const DAYS = "monday tuesday wednesday thursday friday saturday sunday".split(" ");
const TEXT = [
  "call me at five five five".split(" "),
  "my account number is two oh".split(" "),
  "make that sunday".split(" "),
  "call me back".split(" "),
];

describe("DomainNgrams", () => {
  const domain = new DomainNgrams(TEXT);
  const vocabulary = [...new Set([...TEXT.flat(), ...DIGITS, ...DAYS, "</s>"])];
  const teensAndTens =
    "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety".split(
      " ",
    );

  test.each([[[]], [["me"]], [["call", "me"]], [["at", "five"]], [["<s>"]], [["unseen", "words"]]])(
    "p(w | %j) sums to one over the text's words and their classes",
    (history) => {
      const sum = [...vocabulary, ...teensAndTens].reduce(
        (total, word) => total + domain.probability(history, word),
        0,
      );
      expect(sum).toBeCloseTo(1, 10);
    },
  );

  test("learns where a number or a day comes, never which one", () => {
    expect(domain.probability(["me", "at"], "two")).toBeCloseTo(domain.probability(["me", "at"], "five"), 12);
    expect(domain.probability(["me", "at"], "oh")).toBeGreaterThan(
      domain.probability(["me", "at"], "account"),
    );
    expect(domain.probability(["make", "that"], "monday")).toBeCloseTo(
      domain.probability(["make", "that"], "sunday"),
      12,
    );
    expect(domain.probability([], "invoice")).toBe(0);
  });

  test("its n-grams expand each class to its words", () => {
    const bigrams = [...domain.ngrams(2)].map((ngram) => ngram.join(" "));
    expect(bigrams).toEqual(
      expect.arrayContaining(["at zero", "at nine", "that monday", "that sunday", "me back"]),
    );
    expect(bigrams).not.toContain("at ten");
    const trigrams = [...domain.ngrams(3)].map((ngram) => ngram.join(" "));
    expect(trigrams).toContain("two seven three");
    expect(trigrams).toHaveLength(new Set(trigrams).size);
  });
});

/** A small general trigram model, log10 values as an ARPA file would give them. */
function generalModel(): NgramModel {
  const words = [
    ...["<s>", "</s>", "call", "me", "at", "back", "my", "account", "number", "is", "that", "make"],
    ...DIGITS,
    ...DAYS,
  ];
  const id = (word: string) => words.indexOf(word);
  const uniform = Math.log10(1 / (words.length - 1));
  const bigrams = [
    ["<s>", "call", -0.5],
    ["call", "me", -0.1],
    ["me", "back", -0.4],
    ["me", "at", -0.6],
    ["my", "number", -0.3],
  ] as const;
  const trigrams = [["<s>", "call", "me", -0.05]] as const;
  return {
    words,
    orders: [
      {
        ids: Int32Array.from(words.map((_, i) => i)),
        log10Prob: Float64Array.from(words.map((word) => (word === "<s>" ? -99 : uniform))),
        log10Backoff: Float64Array.from(words.map(() => -0.2)),
      },
      {
        ids: Int32Array.from(bigrams.flatMap(([a, b]) => [id(a), id(b)])),
        log10Prob: Float64Array.from(bigrams.map(([, , p]) => p)),
        log10Backoff: Float64Array.from(bigrams.map(() => -0.1)),
      },
      {
        ids: Int32Array.from(trigrams.flatMap(([a, b, c]) => [id(a), id(b), id(c)])),
        log10Prob: Float64Array.from(trigrams.map(([, , , p]) => p)),
      },
    ],
  };
}

/** p(word | history) in a back-off model, history of up to two words. */
function probability(model: NgramModel, history: readonly string[], word: string): number {
  const ids = [...history, word].map((w) => model.words.indexOf(w));
  const find = (ngram: readonly number[]) => {
    const order = model.orders[ngram.length - 1];
    if (!order) return undefined;
    const count = order.log10Prob.length;
    for (let i = 0; i < count; i++) {
      if (ngram.every((w, k) => order.ids[i * ngram.length + k] === w)) return i;
    }
    return undefined;
  };
  const backoffOf = (ngram: readonly number[]) => {
    const i = find(ngram);
    const values = model.orders[ngram.length - 1]?.log10Backoff;
    return i === undefined || values === undefined ? 0 : (values[i] as number);
  };
  const log10 = (ngram: readonly number[]): number => {
    const i = find(ngram);
    if (i !== undefined) return model.orders[ngram.length - 1]?.log10Prob[i] as number;
    return backoffOf(ngram.slice(0, -1)) + log10(ngram.slice(1));
  };
  return 10 ** log10(ids);
}

describe("mixModels", () => {
  const general = generalModel();
  const domain = new DomainNgrams(TEXT);
  const { model, added } = mixModels(general, domain, 0.5);
  const predicted = general.words.filter((word) => word !== "<s>");

  test.each([[[]], [["me"]], [["call", "me"]], [["<s>", "call"]], [["me", "at"]], [["that"]], [["number"]]])(
    "the mixed distribution after %j sums to one",
    (history) => {
      const sum = predicted.reduce((total, word) => total + probability(model, history, word), 0);
      expect(sum).toBeCloseTo(1, 6);
    },
  );

  test("an n-gram either model holds gets the mixed probability", () => {
    for (const [history, word] of [
      [["call", "me"], "at"],
      [["<s>", "call"], "me"],
      [["me"], "back"],
      [["at", "five"], "five"],
    ] as const) {
      const expected = 0.5 * domain.probability(history, word) + 0.5 * probability(general, history, word);
      expect(probability(model, history, word)).toBeCloseTo(expected, 6);
    }
  });

  test("adds the domain's n-grams over the general vocabulary, each once", () => {
    expect(added.bigrams).toBeGreaterThan(0);
    expect(model.orders[1]?.log10Prob.length).toBe(5 + added.bigrams);
    expect(model.orders[2]?.log10Prob.length).toBe(1 + added.trigrams);
    expect(probability(model, ["at", "five"], "five")).toBeGreaterThan(
      probability(general, ["at", "five"], "five"),
    );
  });

  test("refuses a weight outside (0, 1), and domain words the general model lacks", () => {
    expect(() => mixModels(general, domain, 1)).toThrow(/domain weight/);
    expect(() => mixModels(general, new DomainNgrams([["call", "me", "maybe"]]), 0.5)).toThrow(/maybe/);
  });
});
