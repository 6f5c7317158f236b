import type { Transcript } from "@voxtrail/core";
import { tokenize } from "./tokens";

/** How many word tokens ahead a text token is looked for before it is taken as one no word gave. */
const LOOKAHEAD = 3;

/**
 * The recogniser's confidence in each token of `tokenize(transcript.text)`, from the transcript
 * word it came from: each word is tokenised alone, and its tokens are matched to the text's in
 * order, a few ahead at most (a text token no word accounts for gets none). `undefined`
 * for a token whose word carries no confidence. An engine that gives none (Cartesia Ink, a
 * transcript built from text) gives an array of `undefined`.
 *
 * @example
 * tokenConfidences({ text: "Order 4271.", words: [{ word: "Order", confidence: 0.9, ... }, { word: "4271.", confidence: 0.4, ... }], ... });
 * // [0.9, 0.4]
 */
export function tokenConfidences(transcript: Pick<Transcript, "text" | "words">): (number | undefined)[] {
  const heard = transcript.words.flatMap((word) =>
    tokenize(word.word).map((token) => ({ token, confidence: word.confidence })),
  );
  let next = 0;
  return tokenize(transcript.text).map((token) => {
    const at = heard.findIndex(
      (candidate, index) => index >= next && index < next + LOOKAHEAD && candidate.token === token,
    );
    if (at === -1) return undefined;
    next = at + 1;
    return heard[at]?.confidence;
  });
}

/** The lowest confidence of the tokens from `start` to before `end`; `undefined` when none has one. */
export function lowestConfidence(
  confidences: readonly (number | undefined)[],
  start: number,
  end: number,
): number | undefined {
  const known = confidences.slice(start, end).filter((value) => value !== undefined);
  return known.length > 0 ? Math.min(...known) : undefined;
}
