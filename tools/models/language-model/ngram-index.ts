import type { NgramModel } from "./ngram-model";

/** The n-grams of one order, as history index and word id pairs; growable. */
class PairTable {
  #histories: Int32Array;
  #words: Int32Array;
  #length = 0;

  constructor(capacity: number) {
    this.#histories = new Int32Array(capacity);
    this.#words = new Int32Array(capacity);
  }

  get length(): number {
    return this.#length;
  }

  push(history: number, word: number): number {
    if (this.#length === this.#words.length) {
      const grow = (array: Int32Array) => {
        const larger = new Int32Array(Math.max(16, array.length * 2));
        larger.set(array);
        return larger;
      };
      this.#histories = grow(this.#histories);
      this.#words = grow(this.#words);
    }
    this.#histories[this.#length] = history;
    this.#words[this.#length] = word;
    return this.#length++;
  }

  /** The n-gram at `index`: its history (a word id, or a bigram's index) and its word id. */
  at(index: number): [history: number, word: number] {
    return [this.#histories[index] as number, this.#words[index] as number];
  }

  /** Word ids, n per n-gram, flattened; `expand` turns a history into its words. */
  ids(expand: (history: number) => readonly number[] = (history) => [history]): Int32Array {
    const width = expand(this.#histories[0] ?? 0).length + 1;
    const ids = new Int32Array(this.#length * width);
    for (let i = 0; i < this.#length; i++) {
      ids.set(expand(this.#histories[i] as number), i * width);
      ids[i * width + width - 1] = this.#words[i] as number;
    }
    return ids;
  }
}

/**
 * A general trigram model indexed for look-up, to which n-grams can be appended: its own
 * probabilities with back-off ({@link p1}, {@link p2}, {@link p3}) answer only from its own
 * n-grams, never from appended ones.
 */
export class NgramIndex {
  readonly unigrams: number;
  readonly bigrams: PairTable;
  readonly trigrams: PairTable;
  readonly #ids = new Map<string, number>();
  readonly #bigramAt = new Map<number, number>();
  readonly #trigramAt = new Map<number, number>();
  readonly #span: number;
  readonly #general: {
    bigrams: number;
    trigrams: number;
    p: Float64Array[];
    backoff: Float64Array[];
  };

  constructor(model: NgramModel) {
    const [uni, bi, tri] = model.orders;
    if (model.orders.length !== 3 || !uni?.log10Backoff || !bi?.log10Backoff || !tri)
      throw new Error(`a trigram model with back-off weights is needed, not ${model.orders.length}-gram`);
    for (const [id, word] of model.words.entries()) this.#ids.set(word, id);
    this.unigrams = model.words.length;
    this.#span = 2 ** Math.ceil(Math.log2(this.unigrams + 1));
    const linear = (values: Float64Array) => values.map((value) => 10 ** value);
    this.#general = {
      bigrams: bi.log10Prob.length,
      trigrams: tri.log10Prob.length,
      p: [linear(uni.log10Prob), linear(bi.log10Prob), linear(tri.log10Prob)],
      backoff: [linear(uni.log10Backoff), linear(bi.log10Backoff)],
    };
    this.bigrams = new PairTable(bi.log10Prob.length + 1024);
    for (let i = 0; i < bi.log10Prob.length; i++)
      this.append([bi.ids[2 * i] as number, bi.ids[2 * i + 1] as number]);
    this.trigrams = new PairTable(tri.log10Prob.length + 1024);
    for (let i = 0; i < tri.log10Prob.length; i++) {
      const at = 3 * i;
      if (!this.append([tri.ids[at] as number, tri.ids[at + 1] as number, tri.ids[at + 2] as number]))
        throw new Error("a trigram appears twice in the general model");
    }
  }

  /** A word's id, `undefined` outside the vocabulary. */
  wordId(word: string): number | undefined {
    return this.#ids.get(word);
  }

  /** The index of bigram (v, w), if present. */
  bigram(v: number, w: number): number | undefined {
    return this.#bigramAt.get(v * this.#span + w);
  }

  /**
   * Appends a bigram or trigram unless present; true if appended. A trigram's history bigram must
   * be present.
   */
  append(ids: readonly number[]): boolean {
    const [a, b, c] = ids as [number, number, number | undefined];
    if (c === undefined) {
      const key = a * this.#span + b;
      if (this.#bigramAt.has(key)) return false;
      this.#bigramAt.set(key, this.bigrams.push(a, b));
      return true;
    }
    const history = this.bigram(a, b);
    if (history === undefined) throw new Error("a trigram's history is not among the bigrams");
    const key = history * this.#span + c;
    if (this.#trigramAt.has(key)) return false;
    this.#trigramAt.set(key, this.trigrams.push(history, c));
    return true;
  }

  /** The general model's p(w). */
  p1(w: number): number {
    return this.#general.p[0]?.[w] as number;
  }

  /** The general model's p(w | v), backing off to p(w). */
  p2(v: number, w: number): number {
    const i = this.bigram(v, w);
    if (i !== undefined && i < this.#general.bigrams) return this.#general.p[1]?.[i] as number;
    return (this.#general.backoff[0]?.[v] as number) * this.p1(w);
  }

  /** The general model's p(w | u v), for the history bigram at index `h`, backing off to p(w | v). */
  p3(h: number, w: number): number {
    const [, v] = this.bigrams.at(h);
    if (h >= this.#general.bigrams) return this.p2(v, w);
    const i = this.#trigramAt.get(h * this.#span + w);
    if (i !== undefined && i < this.#general.trigrams) return this.#general.p[2]?.[i] as number;
    return (this.#general.backoff[1]?.[h] as number) * this.p2(v, w);
  }
}
