/**
 * Fact scoring: each fact a script states, right or wrong in the record the reasoner wrote. A
 * fact is right only when the reasoner's value equals the expected one exactly and it is not held
 * for review; facts the reasoner found that the script does not state are not counted. A held fact
 * (listed in the record's `review`) is not right, and not stated wrongly either: the reply does
 * not say it.
 */
import type { VoicemailRecord } from "@voxtrail/core";
import type { ExpectedFacts, NumberKind } from "./accuracy-corpus";

/** A fact the bench scores: `record` is the business record matched, reported apart from the others. */
export type FactKind = "intent" | NumberKind | "day" | "record";

/** One expected fact, and what the reasoner made of it. */
export interface FactScore {
  fact: FactKind;
  expected: string;
  /** The reasoner's value; `null` when it found none (`none` when it matched no record). */
  got: string | null;
  right: boolean;
  /** Held for review: the record lists it in `review`, the reply does not state it; absent when not. */
  held?: boolean;
  /** The recogniser's confidence in it, when the record gives one. */
  confidence?: number;
}

/** Right and total counts of a set of facts. */
export interface FactTally {
  right: number;
  total: number;
  /** Held for review (never right). */
  held: number;
  /** Found, not held, and not the expected value: stated as fact, wrongly. */
  statedWrong: number;
}

/**
 * Scores each expected fact against a voicemail record: the intent, each number under its kind,
 * the day when one is expected, and the matched record's id (`none` when no record should match).
 *
 * @example
 * scoreFacts({ intent: "billing", numbers: [{ kind: "accountNumber", value: "8153" }], record: "acct-8153" }, record);
 * // [{ fact: "intent", expected: "billing", got: "billing", right: true }, { fact: "accountNumber", ... }, ...]
 */
export function scoreFacts(
  expected: ExpectedFacts,
  record: Pick<VoicemailRecord, "intent" | "entities" | "match" | "confidence" | "review">,
): FactScore[] {
  const score = (fact: FactKind, want: string, got: string | undefined): FactScore => {
    const held = record.review?.some((review) => review.fact === fact) ?? false;
    const confidence = fact === "record" ? undefined : record.confidence?.[fact];
    return {
      fact,
      expected: want,
      got: got ?? null,
      right: got === want && !held,
      ...(held ? { held } : {}),
      ...(confidence === undefined ? {} : { confidence }),
    };
  };
  const matched = record.match.outcome === "found" ? record.match.record.id : "none";
  return [
    score("intent", expected.intent, record.intent),
    ...expected.numbers.map(({ kind, value }) => score(kind, value, record.entities[kind])),
    ...(expected.day === undefined ? [] : [score("day", expected.day, record.entities.day)]),
    score("record", expected.record ?? "none", matched),
  ];
}

/** Whether a fact is the matched record, which is counted apart from the fact accuracy. */
export const isRecordFact = (fact: FactKind): boolean => fact === "record";

/**
 * Counts the right, held and wrongly stated facts among `scores` of the kinds `kinds` accepts; by
 * default all but the record.
 */
export function tallyFacts(
  scores: readonly FactScore[],
  kinds: (fact: FactKind) => boolean = (fact) => !isRecordFact(fact),
): FactTally {
  const counted = scores.filter((score) => kinds(score.fact));
  return {
    right: counted.filter((score) => score.right).length,
    total: counted.length,
    held: counted.filter((score) => score.held === true).length,
    statedWrong: counted.filter((score) => score.held !== true && score.got !== null && !score.right).length,
  };
}
