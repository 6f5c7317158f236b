/** Word-level edit counts between a reference transcript and a recogniser's hypothesis. */
export interface WordErrors {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Words in the normalised reference: the denominator of the word error rate. */
  referenceWords: number;
}

/**
 * The words WER is computed on: lower case, with everything but letters, digits and apostrophes
 * treated as a word break ("Friday... actually," -> `["friday", "actually"]`).
 */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9']+/g, " ")
    .split(" ")
    .map((word) => word.replace(/^'+|'+$/g, ""))
    .filter((word) => word.length > 0);
}

/**
 * Counts substitutions, deletions and insertions in a minimum-edit alignment of the hypothesis
 * against the reference (Levenshtein distance over normalised words). Summing these counts over a
 * set of files and dividing by the summed `referenceWords` gives the corpus WER.
 *
 * @example
 * countWordErrors("call me back at five", "call me back and five");
 * // { substitutions: 1, deletions: 0, insertions: 0, referenceWords: 5 }
 */
export function countWordErrors(reference: string, hypothesis: string): WordErrors {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  // cost[j] holds the best alignment of ref[0..i) with hyp[0..j), with its edit counts.
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => edits(0, 0, j));
  for (let i = 1; i <= ref.length; i++) {
    const current = [edits(0, i, 0)];
    for (let j = 1; j <= hyp.length; j++) {
      const diagonal = previous[j - 1] as Edits;
      const same = ref[i - 1] === hyp[j - 1];
      current.push(
        cheapest([
          same ? diagonal : add(diagonal, "substitutions"),
          add(previous[j] as Edits, "deletions"),
          add(current[j - 1] as Edits, "insertions"),
        ]),
      );
    }
    previous = current;
  }
  const best = previous[hyp.length] as Edits;
  return { ...best, referenceWords: ref.length };
}

/**
 * Word error rate: (substitutions + deletions + insertions) / reference words, after
 * {@link normalizeWords}. It can exceed 1 when the hypothesis has many extra words. An empty
 * reference gives 0 for an empty hypothesis and 1 otherwise.
 *
 * @example
 * wordErrorRate("order number four two seven one", "order number four to seven when"); // 2 / 6
 */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const { substitutions, deletions, insertions, referenceWords } = countWordErrors(reference, hypothesis);
  const errors = substitutions + deletions + insertions;
  if (referenceWords === 0) return errors === 0 ? 0 : 1;
  return errors / referenceWords;
}

type Edits = Omit<WordErrors, "referenceWords">;

function edits(substitutions: number, deletions: number, insertions: number): Edits {
  return { substitutions, deletions, insertions };
}

function add(from: Edits, kind: keyof Edits): Edits {
  return { ...from, [kind]: from[kind] + 1 };
}

function cheapest(candidates: Edits[]): Edits {
  const total = (e: Edits) => e.substitutions + e.deletions + e.insertions;
  return candidates.reduce((best, candidate) => (total(candidate) < total(best) ? candidate : best));
}
