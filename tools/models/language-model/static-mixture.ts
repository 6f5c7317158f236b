import type { DomainNgrams } from "./domain-ngrams";
import { NgramIndex } from "./ngram-index";
import type { NgramModel, NgramOrder } from "./ngram-model";

/** A mixed model, and how many n-grams the domain added to the general model's. */
export interface MixedModel {
  model: NgramModel;
  added: { bigrams: number; trigrams: number };
}

/**
 * One back-off trigram model that approximates `domainWeight` x the domain model plus the rest x
 * the general one, as a static mixture: its n-grams are the general model's and the domain's
 * (every domain word must be in the general vocabulary), each with the mixed probability, and each history's back-off
 * weight chosen so its distribution sums to one. For words a history has no n-gram for, the
 * mixture backs off as a back-off model does, which is where it differs from mixing the two
 * models word by word at run time (pocketsphinx cannot: it decodes with one model).
 *
 * @example
 * const { model } = mixModels(readSphinxTrie(generalBytes), new DomainNgrams(sentences), 0.5);
 * await writeArpa(model, createWriteStream("voicemail.arpa"));
 */
export function mixModels(general: NgramModel, domain: DomainNgrams, domainWeight: number): MixedModel {
  if (!(domainWeight > 0 && domainWeight < 1))
    throw new Error(`the domain weight must be in (0, 1), not ${domainWeight}`);
  const index = new NgramIndex(general);
  for (const [word] of domain.ngrams(1)) {
    // Its probability would be lost from the mixture, which would no longer sum to one.
    if (word !== undefined && index.wordId(word) === undefined)
      throw new Error(`the domain text's word "${word}" is not in the general model's vocabulary`);
  }
  const { words } = general;
  const added2 = appendDomain(index, domain, 2);
  const added3 = appendDomain(index, domain, 3);
  const { unigrams, bigrams } = index;
  const wordOf = (id: number) => words[id] as string;
  const mix = (history: readonly number[], word: number, generalP: number) =>
    domainWeight * domain.probability(history.map(wordOf), wordOf(word)) + (1 - domainWeight) * generalP;

  const p1 = new Float64Array(unigrams);
  for (let w = 0; w < unigrams; w++) p1[w] = mix([], w, index.p1(w));

  const p2 = new Float64Array(bigrams.length);
  const sums2 = { explicit: new Float64Array(unigrams), lower: new Float64Array(unigrams) };
  for (let i = 0; i < bigrams.length; i++) {
    const [v, w] = bigrams.at(i);
    p2[i] = mix([v], w, index.p2(v, w));
    (sums2.explicit[v] as number) += p2[i] as number;
    (sums2.lower[v] as number) += p1[w] as number;
  }
  const backoff1 = backoffWeights(sums2);
  const mixedP2 = (v: number, w: number) => {
    const i = index.bigram(v, w);
    return i === undefined ? (backoff1[v] as number) * (p1[w] as number) : (p2[i] as number);
  };

  const trigrams = index.trigrams;
  const p3 = new Float64Array(trigrams.length);
  const sums3 = { explicit: new Float64Array(bigrams.length), lower: new Float64Array(bigrams.length) };
  for (let i = 0; i < trigrams.length; i++) {
    const [h, w] = trigrams.at(i);
    const [u, v] = bigrams.at(h);
    p3[i] = mix([u, v], w, index.p3(h, w));
    (sums3.explicit[h] as number) += p3[i] as number;
    (sums3.lower[h] as number) += mixedP2(v, w);
  }
  const backoff2 = backoffWeights(sums3);

  const model: NgramModel = {
    words,
    orders: [
      order(
        Int32Array.from({ length: unigrams }, (_, w) => w),
        p1,
        backoff1,
      ),
      order(bigrams.ids(), p2, backoff2),
      order(
        trigrams.ids((h) => bigrams.at(h)),
        p3,
      ),
    ],
  };
  return { model, added: { bigrams: added2, trigrams: added3 } };
}

/** log10 form of probabilities and back-off weights, as a model holds them. */
function order(ids: Int32Array, probability: Float64Array, backoff?: Float64Array): NgramOrder {
  const log10 = (values: Float64Array) => values.map((value) => (value > 0 ? Math.log10(value) : -99));
  return { ids, log10Prob: log10(probability), ...(backoff ? { log10Backoff: log10(backoff) } : {}) };
}

/**
 * Each history's back-off weight: the probability its explicit n-grams leave, over what the lower
 * order gives those same words. A history with no n-gram keeps 1.
 */
function backoffWeights(sums: { explicit: Float64Array; lower: Float64Array }): Float64Array {
  return sums.explicit.map((explicit, i) =>
    explicit === 0 ? 1 : Math.max(1 - explicit, 1e-9) / Math.max(1 - (sums.lower[i] as number), 1e-9),
  );
}

/** The domain's n-grams of an order that the general model lacks, appended; how many. */
function appendDomain(index: NgramIndex, domain: DomainNgrams, order: 2 | 3): number {
  let added = 0;
  // Every domain word is in the general vocabulary: mixModels checked.
  for (const ngram of domain.ngrams(order)) {
    if (index.append(ngram.map((word) => index.wordId(word) as number))) added++;
  }
  return added;
}
