import type { Entities, Intent } from "@voxtrail/core";
import { DAYS } from "./schedule";
import { tokenize } from "./tokens";

type RequestIntent = Extract<Intent, "order-problem" | "reschedule" | "billing" | "cancellation">;

/** What went wrong with an order, when the caller says so. */
export type OrderProblem = "damaged" | "not-arrived" | "wrong-item";

/** Patterns over the space-joined tokens; stems match inflections ("cancel" -> "cancelled"). */
const ORDER_PROBLEMS: readonly { problem: OrderProblem; pattern: RegExp }[] = [
  { problem: "damaged", pattern: /\b(damaged?|broken|broke|shattered|smashed|crushed|defective|crack\w*)\b/ },
  {
    problem: "not-arrived",
    pattern: /\b(never|hasn't|has not|didn't|did not) (arrived?|came|come|showed up)\b/,
  },
  { problem: "wrong-item", pattern: /\bwrong (item|size|colou?r|order|one)\b/ },
];

/** A day of the week, or a relative one. */
const DAY = `(${[...DAYS, "tomorrow"].join("|")})`;

/** Evidence for each request: a pattern and its weight. */
const KEYWORDS: readonly { intent: RequestIntent; pattern: RegExp; weight: number }[] = [
  { intent: "cancellation", pattern: /\bcancel/, weight: 4 },
  { intent: "cancellation", pattern: /\bunsubscrib/, weight: 3 },
  {
    intent: "cancellation",
    pattern: /\b(no longer|(don't|do not) (need|want)) (it|this|them|the)\b/,
    weight: 2,
  },
  { intent: "cancellation", pattern: /\bsubscription\b/, weight: 1 },
  ...ORDER_PROBLEMS.map(({ pattern }) => ({ intent: "order-problem" as const, pattern, weight: 3 })),
  { intent: "order-problem", pattern: /\b(missing|replacement|replace)\b/, weight: 2 },
  { intent: "order-problem", pattern: /\b(arrived|package|parcel|delivery|delivered|return)\b/, weight: 1 },
  { intent: "reschedule", pattern: /\b(reschedul|postpon)/, weight: 4 },
  { intent: "reschedule", pattern: /\bchange (the|my) (time|day|date|appointment)\b/, weight: 3 },
  { intent: "reschedule", pattern: /\bappointment\b/, weight: 2 },
  { intent: "reschedule", pattern: /\bmove (it|the|my)\b/, weight: 2 },
  // A change to a day, even when the words between are misheard ("change the data saturday").
  { intent: "reschedule", pattern: new RegExp(`\\b(change|move|switch)( \\S+){0,3} ${DAY}\\b`), weight: 2 },
  { intent: "reschedule", pattern: new RegExp(`\\bmake (that|it) ${DAY}\\b`), weight: 2 },
  { intent: "reschedule", pattern: /\b(booked|booking|instead)\b/, weight: 1 },
  { intent: "billing", pattern: /\bovercharg/, weight: 4 },
  { intent: "billing", pattern: /\b(bill|billed|billing|invoice|invoiced)\b/, weight: 3 },
  { intent: "billing", pattern: /\b(charged?|charges|payment|statement|fee)\b/, weight: 2 },
  { intent: "billing", pattern: /\b(paid|refund|card|twice|receipt)\b/, weight: 1 },
];
/** Extra weight each of a day and a time adds to a reschedule that has other evidence. */
const SCHEDULE_ENTITY_WEIGHT = 1;
/** Extra weight an order number adds to an order problem that has other evidence. */
const ORDER_ENTITY_WEIGHT = 1;
/** The least evidence that names a request. */
const MIN_REQUEST_SCORE = 2;
/** On a tie the first of these wins: an explicit request before a complaint. */
const TIE_ORDER: readonly RequestIntent[] = ["cancellation", "reschedule", "order-problem", "billing"];
const CALLBACK_PATTERN = /\b(call (me )?back|give me a call|call me|reach me|get back to me|callback)\b/;

/** Words that carry no message: greetings, fillers, hesitations and function words. */
const EMPTY_WORDS = new Set(
  `um uh uhm er ah hmm oh hi hello hey bye goodbye okay ok yeah yes no never mind sorry well so just like
  anyway thanks thank i i'm it it's is was a an the and but or to of in on at by be this that there here you
  me my we`.split(/\s+/),
);
/** Fewer words that carry meaning than this, and no request or callback: no message. */
const MIN_CONTENT_WORDS = 4;

/**
 * Classifies a transcript by weighted keywords. A request intent (order-problem, reschedule,
 * billing, cancellation) needs a score of at least 2 and the highest wins (ties: cancellation,
 * reschedule, order-problem, billing); a day and a time found add to a reschedule, an order
 * number to an order problem. Otherwise a
 * request to call back (or a callback number) is `callback-request`, fewer than 4 words that carry
 * meaning is `no-message`, and anything else is `other`.
 *
 * @example
 * classifyIntent("please cancel my order", {}); // "cancellation"
 * classifyIntent("um hi never mind bye", {}); // "no-message"
 */
export function classifyIntent(text: string, entities: Entities): Intent {
  const tokens = tokenize(text);
  const joined = tokens.join(" ");
  const scores: Partial<Record<RequestIntent, number>> = {};
  for (const { intent, pattern, weight } of KEYWORDS) {
    if (pattern.test(joined)) scores[intent] = (scores[intent] ?? 0) + weight;
  }
  if (scores.reschedule !== undefined) {
    scores.reschedule += ((entities.day ? 1 : 0) + (entities.time ? 1 : 0)) * SCHEDULE_ENTITY_WEIGHT;
  }
  if (scores["order-problem"] !== undefined && entities.orderNumber) {
    scores["order-problem"] += ORDER_ENTITY_WEIGHT;
  }

  const score = (intent: RequestIntent | undefined) => (intent === undefined ? 0 : (scores[intent] ?? 0));
  const best = TIE_ORDER.reduce<RequestIntent | undefined>(
    (top, intent) => (score(intent) > score(top) ? intent : top),
    undefined,
  );
  if (best !== undefined && score(best) >= MIN_REQUEST_SCORE) return best;
  if (CALLBACK_PATTERN.test(joined) || entities.callbackNumber) return "callback-request";
  const contentWords = tokens.filter((token) => !EMPTY_WORDS.has(token)).length;
  return contentWords < MIN_CONTENT_WORDS ? "no-message" : "other";
}

/** Tokens `start` to before `end`. */
export interface TokenSpan {
  start: number;
  end: number;
}

/**
 * Where in `tokens` the words that name `intent` are: every match of its keyword patterns (for
 * `callback-request`, of the call-back phrases). None for `other` and `no-message`, which are the
 * absence of such words, nor for a call-back request the callback number alone decided.
 *
 * @example
 * intentEvidence(tokenize("please cancel my order"), "cancellation"); // [{ start: 1, end: 2 }]
 */
export function intentEvidence(tokens: readonly string[], intent: Intent): TokenSpan[] {
  const joined = tokens.join(" ");
  const patterns =
    intent === "callback-request"
      ? [CALLBACK_PATTERN]
      : KEYWORDS.filter((keyword) => keyword.intent === intent).map((keyword) => keyword.pattern);
  const tokenAt = (offset: number) => joined.slice(0, offset).split(" ").length - 1;
  return patterns.flatMap((pattern) =>
    [...joined.matchAll(new RegExp(pattern.source, "g"))].map((match) => ({
      start: tokenAt(match.index),
      end: tokenAt(match.index + match[0].length) + 1,
    })),
  );
}

/**
 * The kind of order problem a transcript describes (the first that matches: damaged, not
 * arrived, wrong item), or `undefined`.
 *
 * @example
 * orderProblem("the lamp arrived broken"); // "damaged"
 */
export function orderProblem(text: string): OrderProblem | undefined {
  const joined = tokenize(text).join(" ");
  return ORDER_PROBLEMS.find(({ pattern }) => pattern.test(joined))?.problem;
}
