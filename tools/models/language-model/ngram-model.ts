/** A back-off n-gram language model: vocabulary and, per order, n-grams in typed arrays. */
export interface NgramModel {
  /** Word strings; a word's id is its index. */
  words: string[];
  /** `orders[0]` is the unigrams, `orders[k - 1]` the k-grams. */
  orders: NgramOrder[];
}

/** The n-grams of one order: n-gram `i` at index `i` of each array, in the order an ARPA file lists them. */
export interface NgramOrder {
  /** k word ids per n-gram, flattened (length = count * k). For unigrams, 0..count-1. */
  ids: Int32Array;
  /** log10 probability per n-gram. */
  log10Prob: Float64Array;
  /** log10 back-off weight per n-gram; absent for the highest order. */
  log10Backoff?: Float64Array;
}

/**
 * A language model file is malformed: bad magic, truncated, counts that do not add up. The message
 * says what is wrong and where, never what the file contains.
 */
export class InvalidLanguageModel extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidLanguageModel";
  }
}
