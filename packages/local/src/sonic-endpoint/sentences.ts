/**
 * Words whose trailing period does not end a sentence ("Mr. Lopez", "e.g. a refund"), lower-cased,
 * without their final period.
 */
const ABBREVIATIONS = new Set([
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "st",
  "mt",
  "ave",
  "rd",
  "vs",
  "etc",
  "approx",
  "dept",
  "e.g",
  "i.e",
  "a.m",
  "p.m",
]);

/**
 * A candidate end of sentence: one or more of `.`, `!`, `?` or `…`, any closing quotes or brackets,
 * then whitespace. A period with no whitespace after it ("3.5", "a.m.") never matches.
 */
const CANDIDATE_END = /[.!?…]+["'”’)\]]*(?=\s)/gu;

/** A letter or digit: a piece without one has nothing to say on its own. */
const SPOKEN = /[\p{L}\p{N}]/u;

/**
 * Cuts `text` into sentences, in order, each trimmed, so they can be spoken one at a time: joined
 * with single spaces they give back `text`'s words, every character kept. A sentence ends at `.`,
 * `!`, `?` or `…` (with any closing quotes or brackets) followed by whitespace, except after a known
 * abbreviation ("Mr.", "e.g.") or a single-letter initial ("J."), and except when the next word
 * begins with a lower-case letter ("Friday... actually"). Decimals and times ("3.5", "3:30") never
 * split; text without terminal punctuation is one sentence. A piece with no letter or digit (a stray
 * "..." or "!") joins the sentence before it, or the one after when it comes first; blank text gives
 * no sentences.
 *
 * @example
 * splitSentences("Hi Mr. Lopez. Your total is 3.5 dollars! Bye");
 * // ["Hi Mr. Lopez.", "Your total is 3.5 dollars!", "Bye"]
 */
export function splitSentences(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(CANDIDATE_END)) {
    const end = match.index + match[0].length;
    if (!endsSentence(text, match.index, end)) continue;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return joinUnspoken(pieces.map((piece) => piece.trim()).filter((piece) => piece !== ""));
}

/** Whether the punctuation at `text[from, to)` ends a sentence (see {@link splitSentences}). */
function endsSentence(text: string, from: number, to: number): boolean {
  const next = /\S/u.exec(text.slice(to, to + 64));
  if (next && /\p{Ll}/u.test(next[0])) return false;
  if (!/^\.(?![.!?…])/u.test(text.slice(from, to))) return true;
  const word = /\S+$/u.exec(text.slice(Math.max(0, from - 32), from))?.[0] ?? "";
  const bare = word.replace(/^["'“‘([]+/u, "").toLowerCase();
  return !(/^\p{L}$/u.test(bare) || ABBREVIATIONS.has(bare));
}

/**
 * Each piece without a letter or digit joined to the piece before it; a first piece without one
 * takes the piece after it.
 */
function joinUnspoken(pieces: string[]): string[] {
  const joined: string[] = [];
  for (const piece of pieces) {
    const last = joined.length - 1;
    const previous = joined[last];
    if (previous !== undefined && !(SPOKEN.test(piece) && SPOKEN.test(previous))) {
      joined[last] = `${previous} ${piece}`;
    } else {
      joined.push(piece);
    }
  }
  return joined;
}
