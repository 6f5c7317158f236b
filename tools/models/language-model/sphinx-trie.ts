/**
 * Reads CMU Sphinx's "trie" binary language models (sphinxbase 5prealpha), the only form in which
 * Debian's pocketsphinx-en-us ships its general English 3-gram model, `en-us.lm.bin`; Debian's
 * `sphinx_lm_convert` crashes writing that one as ARPA.
 *
 * Layout, little-endian, no padding between parts:
 *
 *     "Trie Language Model"             19 bytes, no NUL
 *     uint8 N; uint32 count[N]          per order, the records sphinx allocated (see below)
 *     if N > 1, the quantiser:          int32 (unused), then tables of 65 536 float32 centres:
 *                                       a probability and a back-off table per middle order,
 *                                       then a probability table for the highest order
 *     (count[0] + 1) unigram records    float32 prob, float32 backoff, uint32 first child;
 *                                       the last one only ends the children of the one before
 *     per order k = 2..N, bit-packed:   (count[k-1] + 1) records, then 8 bytes of padding
 *        middle orders                  word id | 16-bit backoff bin | 16-bit prob bin | first child
 *        highest order                  word id | 16-bit prob bin
 *     uint32 length; the words          each NUL-terminated, in word id order
 *
 * A record at index r starts at bit r * (record width), read as a little-endian bit field. The
 * trie is reversed: the children of the n-gram "w2 ... wk" are the records of its extensions
 * to the left, "w1 w2 ... wk", each holding w1, sorted by word id (or meant to be); a record's
 * children run from its first child to the next record's. Values are in sphinx's logmath units.
 */
import { InvalidLanguageModel, type NgramModel, type NgramOrder } from "./ngram-model";

const MAGIC = "Trie Language Model";
/**
 * The base of sphinx's logmath units, the logarithms in which the file stores probabilities and
 * back-off weights (pocketsphinx's `-logbase`, 1.0001 unless changed).
 */
export const SPHINX_LOG_BASE = 1.0001;
const LOG10_PER_UNIT = Math.log10(SPHINX_LOG_BASE);
/** Orders above 1 store each value as a 16-bit index into a table of float32 centres. */
const BIN_BITS = 16;
const TABLE_BYTES = 4 << BIN_BITS;
const UNIGRAM_BYTES = 12;
/** Sphinx reads word ids and child indices as bit fields of at most 25 bits. */
const MAX_FIELD_BITS = 25;
/** Bytes after each bit-packed array, so that reading its last record never runs past it. */
const ARRAY_PADDING = 8;

/** One order's bit-packed records and its quantiser tables; bit offsets are within a record. */
interface PackedArray {
  view: DataView;
  /** log10 values of the probability and (below the highest order) back-off bins. */
  probTable: Float64Array;
  backoffTable?: Float64Array;
  /** Records, not counting the last one, which only ends the children of the one before. */
  records: number;
  recordBits: number;
  wordBits: number;
  probAt: number;
  childAt: number;
  /** 0 for the highest order. */
  childBits: number;
}

/** One order's records that the unigrams lead to, in file order. */
interface Level {
  /** The records are [begin, end). */
  begin: number;
  end: number;
  /** The n-gram each record stands for: k word ids, first word first. */
  ids: Int32Array;
  /** 1 where sphinx's own lookup finds the record. */
  findable: Uint8Array;
  /** A record's first child in the next order; for `end`, the end of the last record's children. */
  firstChild: (record: number) => number;
}

/**
 * Reads a sphinx trie binary language model. Probabilities and back-off weights come out as log10
 * (the file's logmath values times log10 of {@link SPHINX_LOG_BASE}); the vocabulary must be
 * UTF-8. The model holds the n-grams that sphinx can look up, so it scores as the binary does; the
 * n-grams of each order are sorted by word ids, first word first, and each one's prefix is in the
 * order below. Malformed input throws {@link InvalidLanguageModel}.
 *
 * @example
 * const model = readSphinxTrie(await readFile("/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"));
 * model.orders.map((order) => order.log10Prob.length); // [72547, 2051541, 1669623]
 */
export function readSphinxTrie(bytes: Uint8Array): NgramModel {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  /** Skips `length` bytes and returns where they start; throws if the file ends first. */
  const take = (length: number, what: string): number => {
    if (offset + length > bytes.length) {
      throw new InvalidLanguageModel(`sphinx trie language model truncated: the file ends in ${what}`);
    }
    offset += length;
    return offset - length;
  };

  if (String.fromCharCode(...bytes.subarray(0, MAGIC.length)) !== MAGIC) {
    throw new InvalidLanguageModel(`not a sphinx trie language model: it does not start with "${MAGIC}"`);
  }
  offset = MAGIC.length;
  const order = view.getUint8(take(1, "the header"));
  if (order === 0) throw new InvalidLanguageModel("sphinx trie language model of order 0");
  const countsAt = take(4 * order, "the header");
  const counts = Array.from({ length: order }, (_, index) => view.getUint32(countsAt + 4 * index, true));
  const vocabularySize = counts[0] ?? 0;

  // A probability and a back-off table per middle order, then the highest order's probabilities.
  const tablesAt = order > 1 ? take(4 + (2 * order - 3) * TABLE_BYTES, "the quantiser") + 4 : 0;
  const unigramsAt = take((vocabularySize + 1) * UNIGRAM_BYTES, "the unigrams");
  const arrays: PackedArray[] = [];
  const wordBits = bitsFor(vocabularySize);
  for (let k = 2; k <= order; k++) {
    const childBits = k < order ? bitsFor(counts[k] ?? 0) : 0;
    if (wordBits > MAX_FIELD_BITS || childBits > MAX_FIELD_BITS) {
      throw new InvalidLanguageModel(
        `sphinx trie language model too large: its ${k}-grams need fields wider than ${MAX_FIELD_BITS} bits`,
      );
    }
    const probAt = k < order ? wordBits + BIN_BITS : wordBits;
    const childAt = probAt + BIN_BITS;
    const records = counts[k - 1] ?? 0;
    const recordBits = childAt + childBits;
    const length = Math.ceil(((records + 1) * recordBits) / 8) + ARRAY_PADDING;
    const tableAt = tablesAt + 2 * (k - 2) * TABLE_BYTES;
    arrays.push({
      view: new DataView(bytes.buffer, bytes.byteOffset + take(length, `the ${k}-grams`), length),
      probTable: readTable(view, tableAt),
      backoffTable: k < order ? readTable(view, tableAt + TABLE_BYTES) : undefined,
      records,
      recordBits,
      wordBits,
      probAt,
      childAt,
      childBits,
    });
  }
  const vocabularyLength = view.getUint32(take(4, "the vocabulary"), true);
  const vocabularyAt = take(vocabularyLength, "the vocabulary");
  if (offset !== bytes.length) {
    throw new InvalidLanguageModel(
      `sphinx trie language model has ${bytes.length - offset} bytes after its vocabulary`,
    );
  }
  const words = readWords(bytes.subarray(vocabularyAt, offset), vocabularySize);

  const unigrams: NgramOrder = {
    ids: new Int32Array(vocabularySize),
    log10Prob: new Float64Array(vocabularySize),
    log10Backoff: order > 1 ? new Float64Array(vocabularySize) : undefined,
  };
  for (let word = 0; word < vocabularySize; word++) {
    unigrams.ids[word] = word;
    unigrams.log10Prob[word] = view.getFloat32(unigramsAt + word * UNIGRAM_BYTES, true) * LOG10_PER_UNIT;
    if (unigrams.log10Backoff) {
      unigrams.log10Backoff[word] =
        view.getFloat32(unigramsAt + word * UNIGRAM_BYTES + 4, true) * LOG10_PER_UNIT;
    }
  }
  const orders = [unigrams];
  let lower = unigrams;
  let parents: Level = {
    begin: 0,
    end: vocabularySize,
    ids: unigrams.ids,
    findable: new Uint8Array(vocabularySize).fill(1),
    firstChild: (word) => view.getUint32(unigramsAt + word * UNIGRAM_BYTES + 8, true),
  };
  for (const [index, array] of arrays.entries()) {
    const k = index + 2;
    const level = readLevel(array, k, parents, vocabularySize);
    lower = sortedOrder(level, k, array, lower, vocabularySize);
    orders.push(lower);
    parents = level;
  }
  return { words, orders };
}

/**
 * The records of order k that the parents lead to. Only these: the header counts the records sphinx
 * allocated, which can be more than it filled (en-us.lm.bin's counts 6 more bigrams than it holds:
 * empty slots at the end of the array, which no unigram leads to).
 */
function readLevel(array: PackedArray, k: number, parents: Level, vocabularySize: number): Level {
  const begin = parents.firstChild(parents.begin);
  const end = parents.firstChild(parents.end);
  if (end > array.records) {
    throw new InvalidLanguageModel(`sphinx trie language model corrupt: children beyond the ${k}-grams`);
  }
  const ids = new Int32Array(Math.max(0, end - begin) * k);
  const findable = new Uint8Array(Math.max(0, end - begin));
  for (let parent = parents.begin; parent < parents.end; parent++) {
    const first = parents.firstChild(parent);
    const last = parents.firstChild(parent + 1);
    if (last < first) {
      throw new InvalidLanguageModel(`sphinx trie language model corrupt: ${k}-gram children out of order`);
    }
    const parentAt = (parent - parents.begin) * (k - 1);
    const parentFindable = parents.findable[parent - parents.begin] === 1;
    for (let record = first; record < last; record++) {
      const word = wordOf(array, record);
      const at = (record - begin) * k;
      ids[at] = word;
      for (let position = 1; position < k; position++) {
        ids[at + position] = parents.ids[parentAt + position - 1] ?? 0;
      }
      // Sphinx finds an n-gram by finding its suffix, then searching the suffix's children for the
      // first word; a search that assumes sorted children misses some where they are not
      // (en-us.lm.bin: 2 trigrams, "whips and bullhorns" and "<s> and jerri"). Dropping those
      // makes the model score as the binary does.
      const found =
        parentFindable &&
        word < vocabularySize &&
        sphinxFind(array, first, last, word, vocabularySize) === record;
      findable[record - begin] = found ? 1 : 0;
    }
  }
  return { begin, end, ids, findable, firstChild: (record) => childOf(array, record) };
}

/**
 * The findable n-grams of a level, sorted by word ids, first word first. Those whose prefix (the
 * first k - 1 words) is not in `lower`, the order below, are dropped: an ARPA file must not hold
 * them, and the trie ensures only that each n-gram's suffix is there (its parent). None of
 * en-us.lm.bin's lacks its prefix.
 */
function sortedOrder(
  level: Level,
  k: number,
  array: PackedArray,
  lower: NgramOrder,
  vocabularySize: number,
): NgramOrder {
  const findable = new Int32Array(level.findable.reduce((count, found) => count + found, 0));
  let findableCount = 0;
  for (const [index, found] of level.findable.entries()) if (found) findable[findableCount++] = index;
  const sorted = sortByWords(level.ids, k, findable, vocabularySize);
  const kept = new Int32Array(sorted.length);
  let keptCount = 0;
  const lowerCount = lower.ids.length / (k - 1);
  let below = 0;
  for (const index of sorted) {
    while (below < lowerCount && compareWords(lower.ids, below * (k - 1), level.ids, index * k, k - 1) < 0) {
      below++;
    }
    if (below < lowerCount && compareWords(lower.ids, below * (k - 1), level.ids, index * k, k - 1) === 0) {
      kept[keptCount++] = index;
    }
  }
  const ids = new Int32Array(keptCount * k);
  const log10Prob = new Float64Array(keptCount);
  const { probTable, backoffTable } = array;
  const log10Backoff = backoffTable ? new Float64Array(keptCount) : undefined;
  for (let n = 0; n < keptCount; n++) {
    const index = kept[n] ?? 0;
    ids.set(level.ids.subarray(index * k, (index + 1) * k), n * k);
    const record = level.begin + index;
    log10Prob[n] = probTable[field(array, record, array.probAt, BIN_BITS)] ?? 0;
    if (log10Backoff) log10Backoff[n] = backoffTable?.[field(array, record, array.wordBits, BIN_BITS)] ?? 0;
  }
  return { ids, log10Prob, log10Backoff };
}

/**
 * Sphinx's lookup of `word` among the records [begin, end): an interpolation search that takes
 * the records to be sorted by word id, in sphinx's uint32 arithmetic. The record it lands on, or -1.
 */
function sphinxFind(
  array: PackedArray,
  begin: number,
  end: number,
  word: number,
  vocabularySize: number,
): number {
  let below = begin - 1;
  let belowWord = 0;
  let above = end;
  let aboveWord = vocabularySize;
  while (above - below > 1) {
    // Always strictly between `below` and `above`, even when the product overflows.
    const step = Math.floor(
      (Math.imul(word - belowWord, above - below - 1) >>> 0) / (aboveWord - belowWord + 1),
    );
    const pivot = below + 1 + step;
    const pivotWord = wordOf(array, pivot);
    if (pivotWord < word) {
      below = pivot;
      belowWord = pivotWord;
    } else if (pivotWord > word) {
      above = pivot;
      aboveWord = pivotWord;
    } else {
      return pivot;
    }
  }
  return -1;
}

/**
 * `indices` of n-grams (k word ids each in `ids`, all below `vocabularySize`) ordered by their
 * words, first word first.
 */
function sortByWords(ids: Int32Array, k: number, indices: Int32Array, vocabularySize: number): Int32Array {
  // Least significant word first, a stable counting sort by each.
  let sorted: Int32Array = indices;
  let scratch: Int32Array = new Int32Array(indices.length);
  const starts = new Int32Array(vocabularySize + 1);
  for (let position = k - 1; position >= 0; position--) {
    starts.fill(0);
    for (const index of sorted) {
      const at = (ids[index * k + position] ?? 0) + 1;
      starts[at] = (starts[at] ?? 0) + 1;
    }
    for (let id = 1; id < starts.length; id++) starts[id] = (starts[id] ?? 0) + (starts[id - 1] ?? 0);
    for (const index of sorted) {
      const id = ids[index * k + position] ?? 0;
      const at = starts[id] ?? 0;
      scratch[at] = index;
      starts[id] = at + 1;
    }
    [sorted, scratch] = [scratch, sorted];
  }
  return sorted;
}

/** Compares `length` word ids of `a` from `aAt` with those of `b` from `bAt`, first word first. */
function compareWords(a: Int32Array, aAt: number, b: Int32Array, bAt: number, length: number): number {
  for (let position = 0; position < length; position++) {
    const difference = (a[aAt + position] ?? 0) - (b[bAt + position] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** A 65 536-entry quantiser table, in log10. */
function readTable(view: DataView, at: number): Float64Array {
  const table = new Float64Array(1 << BIN_BITS);
  for (let bin = 0; bin < table.length; bin++) {
    table[bin] = view.getFloat32(at + 4 * bin, true) * LOG10_PER_UNIT;
  }
  return table;
}

/** The vocabulary: `count` NUL-terminated UTF-8 words. */
function readWords(bytes: Uint8Array, count: number): string[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InvalidLanguageModel("sphinx trie language model's vocabulary is not UTF-8");
  }
  const words = text.split("\0");
  // After the last word's NUL, the split leaves an empty string.
  if (words.pop() !== "" || words.length !== count) {
    throw new InvalidLanguageModel(
      `sphinx trie language model's vocabulary is not the ${count} NUL-terminated words its header counts`,
    );
  }
  return words;
}

/** Bits that hold the values 0..max. */
function bitsFor(max: number): number {
  return 32 - Math.clz32(max);
}

function wordOf(array: PackedArray, record: number): number {
  return field(array, record, 0, array.wordBits);
}

function childOf(array: PackedArray, record: number): number {
  return field(array, record, array.childAt, array.childBits);
}

/** The `width`-bit field (at most 25 bits) at bit `at` of a record. */
function field(array: PackedArray, record: number, at: number, width: number): number {
  const bit = record * array.recordBits + at;
  return (array.view.getUint32(Math.floor(bit / 8), true) >>> (bit % 8)) & ((1 << width) - 1);
}
