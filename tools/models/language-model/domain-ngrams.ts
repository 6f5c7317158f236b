/**
 * The word classes of the domain model: it learns where a caller says a number or a day, never
 * which one, so no digit or day becomes likelier than another because the text happened to use it
 * (with days as words, a model of text that named Monday heard "make that Sunday" as "Monday").
 */
const WORD_CLASSES: Readonly<Record<string, readonly string[]>> = {
  "<digit>": "zero oh one two three four five six seven eight nine".split(" "),
  "<teen>": "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(" "),
  "<tens>": "twenty thirty forty fifty sixty seventy eighty ninety".split(" "),
  "<day>": "monday tuesday wednesday thursday friday saturday sunday".split(" "),
};
const CLASS_OF = new Map(
  Object.entries(WORD_CLASSES).flatMap(([name, words]) => words.map((word) => [word, name] as const)),
);

/**
 * How much of each seen count goes to the lower order (interpolated absolute discounting): with a
 * few hundred words of text most n-grams are seen once, so a large share.
 */
const DISCOUNT = 0.7;

/** Sentence boundaries, as pocketsphinx's language models name them. */
export const SENTENCE_START = "<s>";
export const SENTENCE_END = "</s>";

/**
 * A trigram model of a small domain text (voicemails to one business), with number words and day
 * names pooled in classes ({@link WORD_CLASSES}): interpolated absolute discounting down to the unigram
 * relative frequencies, over the text's own vocabulary (a word it never uses has probability 0;
 * the general model it is mixed with covers those).
 *
 * @example
 * const domain = new DomainNgrams([["call", "me", "at", "five", "five", "five"]]);
 * domain.probability(["me", "at"], "five"); // p(<digit> | me at) / 11
 * [...domain.ngrams(2)]; // [["<s>", "call"], ["call", "me"], ["me", "at"], ["at", "zero"], ...]
 */
export class DomainNgrams {
  readonly #unigrams = new Map<string, number>();
  readonly #successors = new Map<string, Map<string, number>>();
  /** Each history's count of n-grams, summed once: the mixture asks for millions of probabilities. */
  readonly #totals = new Map<string, number>();
  #tokens = 0;

  /** Counts the sentences' words (lower case, as the dictionary spells them); each is one utterance. */
  constructor(sentences: readonly (readonly string[])[]) {
    for (const sentence of sentences) {
      const tokens = [SENTENCE_START, ...sentence.map(classOf), SENTENCE_END];
      for (let index = 1; index < tokens.length; index++) {
        const word = tokens[index] as string;
        this.#unigrams.set(word, (this.#unigrams.get(word) ?? 0) + 1);
        this.#tokens++;
        this.#count(tokens.slice(index - 1, index), word);
        if (index >= 2) this.#count(tokens.slice(index - 2, index), word);
      }
    }
    for (const [history, successors] of this.#successors) {
      let total = 0;
      for (const count of successors.values()) total += count;
      this.#totals.set(history, total);
    }
  }

  /** p(word | history), history of zero to two words, oldest first. */
  probability(history: readonly string[], word: string): number {
    const token = classOf(word);
    // A token the text never used has probability 0 after every history: asked of most of the
    // general model's n-grams, so answered without walking the histories.
    if (!this.#unigrams.has(token)) return 0;
    const members = WORD_CLASSES[token]?.length ?? 1;
    return this.#classProbability(history.map(classOf), token) / members;
  }

  /** The word n-grams of an order (1 to 3) the text holds, each number class expanded to its words. */
  *ngrams(order: number): Generator<string[]> {
    if (order === 1) {
      for (const token of this.#unigrams.keys()) yield* expand([token]);
      return;
    }
    for (const [history, successors] of this.#successors) {
      const tokens = history.split(" ");
      if (tokens.length !== order - 1) continue;
      for (const token of successors.keys()) yield* expand([...tokens, token]);
    }
  }

  #count(history: readonly string[], word: string): void {
    const key = history.join(" ");
    let successors = this.#successors.get(key);
    if (successors === undefined) {
      successors = new Map();
      this.#successors.set(key, successors);
    }
    successors.set(word, (successors.get(word) ?? 0) + 1);
  }

  #classProbability(history: readonly string[], token: string): number {
    if (history.length === 0) return (this.#unigrams.get(token) ?? 0) / this.#tokens;
    const lower = this.#classProbability(history.slice(1), token);
    const key = history.join(" ");
    const successors = this.#successors.get(key);
    if (successors === undefined) return lower;
    const total = this.#totals.get(key) as number;
    const seen = Math.max((successors.get(token) ?? 0) - DISCOUNT, 0) / total;
    return seen + ((DISCOUNT * successors.size) / total) * lower;
  }
}

const classOf = (word: string): string => CLASS_OF.get(word) ?? word;

/** Every word n-gram a class n-gram stands for. */
function* expand(tokens: readonly string[]): Generator<string[]> {
  const [first, ...rest] = tokens;
  if (first === undefined) {
    yield [];
    return;
  }
  for (const tail of expand(rest)) {
    for (const word of WORD_CLASSES[first] ?? [first]) yield [word, ...tail];
  }
}
