import type { CheckedFact, Entities, FactReview, Intent, ReferenceLengths, Transcript } from "@voxtrail/core";
import { findDigitRuns } from "./digits";
import { intentEvidence, type TokenSpan } from "./intent";
import { findTimes } from "./schedule";
import { lowestConfidence, tokenConfidences } from "./token-confidence";
import { tokenize } from "./tokens";

/**
 * The confidence below which a fact is held for review, chosen on the accuracy corpus's tuning
 * half only (tuned voices): the highest multiple of 0.05 that holds at most 1% of the facts that
 * are right with none held (pooled telephony and 16 kHz copies: 3 of 372 held, 96.9% -> 96.1%
 * right). On that half, reasoned with today's rules, the confidences catch no wrong fact below 0.3,
 * so a lower threshold holds right facts almost only; an earlier 0.2 (within 3 points there) cost the tuned voices 4.7 points on scripts
 * no tuning step read (docs/fact-confidence.md).
 */
export const REVIEW_THRESHOLD = 0.1;

/**
 * The mean word confidence below which a whole call is too little made out to trust any fact
 * taken from it, chosen on the tuned voices only: the highest round figure that holds none of
 * their calls. Their lowest are the bundled hang-up ("um, hi, uh... never mind, bye", 0.468 at
 * 16 kHz, 0.481 by phone); the tuning half's telephony copies at 30 dB noise stay above 0.726. On
 * voices no tuning step heard, the calls below it are those whose words were mostly wrong, where
 * an intent was read from the few words that came through ("call me back" alone reads as a
 * callback request) and numbers from guesses (docs/fact-confidence.md).
 */
export const CALL_REVIEW_THRESHOLD = 0.45;

const NUMBER_FACTS = ["orderNumber", "accountNumber", "callbackNumber"] as const;

/** Which of the records' number lengths each number fact must have. */
const LENGTH_OF = { orderNumber: "order", accountNumber: "account" } as const;

/** What else {@link checkFacts} weighs: the records' number lengths, and the words as heard. */
export interface FactCheckOptions {
  /** How many digits the records' order and account numbers have (`RecordLookup.numberLengths`). */
  lengths?: ReferenceLengths;
  /**
   * The words as the recogniser heard them, for the call rule's mean, when `transcript` is a
   * reading of them (a Spanish call read in English joins and splits words); default its own.
   */
  heard?: Transcript["words"];
}

/** Each checked fact's confidence, and those held for review. */
export interface FactCheck {
  confidence: Partial<Record<CheckedFact, number>>;
  review: FactReview[];
}

/**
 * Checks each fact a reasoner took from a transcript against the recogniser's confidence in the
 * words it came from, whichever reasoner found it: the same rule for the local one and for a
 * model's answer.
 *
 * - A number's words are the last run of spoken digits that holds its digits (other characters
 *   ignored, a doubled zero counted once, as the reader may drop one); a day's, the last place
 *   its words are said.
 * - The intent's are the words that name it ({@link intentEvidence}): the best-heard of them
 *   counts, since one clear "cancel" decides a cancellation. An intent no words named (`other`,
 *   `no-message`, a call back asked for by a number alone) gets the mean confidence of all words.
 * - A fact's confidence is the lowest of its words' ({@link tokenConfidences}); a fact whose words
 *   are not in the transcript at all (a model's invention, a number put together from several)
 *   gets 0 when the transcript carries confidences.
 * - Below `threshold` a fact is held for review. Where the engine gives no confidence (Cartesia
 *   Ink, a transcript from text) a fact has none and is never held for it: the rule cannot tell a
 *   sure word from an unsure one, and the record says so by leaving its confidence out.
 * - When the mean confidence of all the call's words is below {@link CALL_REVIEW_THRESHOLD}, every
 *   fact found is held, whatever its own words' confidence: the call was too little made out.
 * - An order or account number whose digits are not as many as every such number in the records
 *   has (`lengths`, from `RecordLookup.numberLengths`) is held too, however sure the words: no
 *   record can have it, so it was misheard (a digit heard twice, one dropped) or misspoken, and a
 *   reply that repeats it states a number the caller did not give.
 *
 * @example
 * checkFacts(transcript, "cancellation", { orderNumber: "4271" }, 0.5);
 * // { confidence: { intent: 0.93, orderNumber: 0.31 }, review: [{ fact: "orderNumber", confidence: 0.31, threshold: 0.5, reason: "..." }] }
 */
export function checkFacts(
  transcript: Pick<Transcript, "text" | "words">,
  intent: Intent,
  entities: Entities,
  threshold: number,
  { lengths = {}, heard = transcript.words }: FactCheckOptions = {},
): FactCheck {
  const tokens = tokenize(transcript.text);
  const confidences = tokenConfidences(transcript);
  const anyConfidence = confidences.some((value) => value !== undefined);
  const confidence: FactCheck["confidence"] = {};
  const review: FactReview[] = [];
  /** Records a fact's confidence, and holds it below the threshold; `why` says what the score is. */
  const judge = (fact: CheckedFact, score: number | undefined, why: string) => {
    if (score === undefined) return;
    const rounded = round(score);
    confidence[fact] = rounded;
    if (score < threshold)
      review.push({
        fact,
        confidence: rounded,
        threshold,
        reason: `${why} ${rounded} is below ${threshold}`,
      });
  };
  /** The lowest confidence of the words of each span; the best or the worst of them. */
  const fromSpans = (
    fact: CheckedFact,
    spans: readonly TokenSpan[],
    pick: (...values: number[]) => number,
  ) => {
    if (spans.length === 0) {
      if (anyConfidence) judge(fact, 0, "its words were not found in the transcript: confidence");
      return;
    }
    const found = spans.flatMap((span) => lowestConfidence(confidences, span.start, span.end) ?? []);
    judge(fact, found.length > 0 ? pick(...found) : undefined, "the recogniser's confidence in its words");
  };

  const runs = findDigitRuns(tokens, claimedByTimes(tokens));
  for (const fact of NUMBER_FACTS) {
    const digits = entities[fact];
    if (digits === undefined) continue;
    const wanted = oneZero(digits.replace(/\D/g, ""));
    const run = wanted === "" ? undefined : runs.findLast((run) => oneZero(run.digits).includes(wanted));
    fromSpans(fact, run ? [run] : [], Math.min);
    if (fact === "callbackNumber") continue;
    const length = lengths[LENGTH_OF[fact]];
    const digitCount = digits.replace(/\D/g, "").length;
    if (length !== undefined && digitCount !== length && !review.some((held) => held.fact === fact))
      review.push({
        fact,
        confidence: confidence[fact] ?? 0,
        threshold,
        reason: `heard with ${digitCount} digits, where every ${LENGTH_OF[fact]} number in the records has ${length}`,
      });
  }
  if (entities.day !== undefined) fromSpans("day", lastMention(tokens, tokenize(entities.day)), Math.min);
  const evidence = intentEvidence(tokens, intent);
  if (evidence.length > 0) fromSpans("intent", evidence, Math.max);
  else judge("intent", mean(confidences), "no words named it, and the recogniser's mean confidence");
  const call = mean(heard.map((word) => word.confidence));
  if (call !== undefined && call < CALL_REVIEW_THRESHOLD) {
    for (const fact of Object.keys(confidence) as CheckedFact[]) {
      if (review.some((held) => held.fact === fact)) continue;
      // Rounded down, so a mean just below the threshold never reads as equal to it.
      const shown = Math.floor(call * 1000) / 1000;
      review.push({
        fact,
        confidence: shown,
        threshold: CALL_REVIEW_THRESHOLD,
        reason: `the recogniser's mean confidence over the whole call ${shown} is below ${CALL_REVIEW_THRESHOLD}: too little of it was made out`,
      });
    }
  }
  return { confidence, review };
}

/** The token indexes clock times take, which the entity reader keeps out of numbers too. */
function claimedByTimes(tokens: readonly string[]): Set<number> {
  return new Set(
    findTimes(tokens).flatMap((time) =>
      Array.from({ length: time.end - time.start }, (_, i) => time.start + i),
    ),
  );
}

/** The last place `phrase` is said in `tokens`, as a one-span list; empty when it is not. */
function lastMention(tokens: readonly string[], phrase: readonly string[]): TokenSpan[] {
  if (phrase.length === 0) return [];
  for (let start = tokens.length - phrase.length; start >= 0; start--) {
    if (phrase.every((token, offset) => tokens[start + offset] === token)) {
      return [{ start, end: start + phrase.length }];
    }
  }
  return [];
}

/** The mean of the confidences known; `undefined` when none is. */
function mean(confidences: readonly (number | undefined)[]): number | undefined {
  const known = confidences.filter((value) => value !== undefined);
  return known.length > 0 ? known.reduce((sum, value) => sum + value, 0) / known.length : undefined;
}

/** Digits with each run of zeros as one: "41007" and "4107" agree. */
const oneZero = (digits: string) => digits.replace(/0+/g, "0");

const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * `entities` without the facts held for review: what a reasoner may look the business record up
 * by and write the reply from.
 *
 * @example
 * trustedEntities({ orderNumber: "4271", day: "Friday" }, [{ fact: "orderNumber", ... }]); // { day: "Friday" }
 */
export function trustedEntities(entities: Entities, review: readonly Pick<FactReview, "fact">[]): Entities {
  const held = new Set<string>(review.map(({ fact }) => fact));
  return Object.fromEntries(Object.entries(entities).filter(([name]) => !held.has(name))) as Entities;
}

/**
 * What a record's summary adds when facts are held: which, by kind ("" when none is).
 *
 * @example
 * heldNote([{ fact: "orderNumber", ... }, { fact: "day", ... }]); // " Held for review: orderNumber, day."
 */
export function heldNote(review: readonly Pick<FactReview, "fact">[]): string {
  return review.length > 0 ? ` Held for review: ${review.map(({ fact }) => fact).join(", ")}.` : "";
}
