import * as z from "zod/mini";
import { Processor } from "./boundary";

/** What the caller wants. */
export const Intent = z.enum([
  "order-problem",
  "reschedule",
  "billing",
  "cancellation",
  "callback-request",
  "no-message",
  "other",
]);
export type Intent = z.infer<typeof Intent>;

/** A business record from the records store (an order or an account). */
export const BusinessRecord = z.catchall(
  z.object({
    type: z.enum(["order", "account"]),
    id: z.string(),
    accountNumber: z.optional(z.string()),
    orderNumber: z.optional(z.string()),
    phone: z.optional(z.string()),
    customerName: z.optional(z.string()),
    status: z.optional(z.string()),
  }),
  z.unknown(),
);
export type BusinessRecord = z.infer<typeof BusinessRecord>;

/** Entities found in the voicemail; a later correction by the caller replaces the earlier value. */
export const Entities = z.object({
  callbackNumber: z.optional(z.string()),
  orderNumber: z.optional(z.string()),
  accountNumber: z.optional(z.string()),
  day: z.optional(z.string()),
  time: z.optional(z.string()),
  callerName: z.optional(z.string()),
});
export type Entities = z.infer<typeof Entities>;

/** How the business-record lookup went. */
export const RecordMatch = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("found"), matchedOn: z.string(), record: BusinessRecord }),
  z.object({ outcome: z.literal("not-found"), searchedFor: z.array(z.string()) }),
]);
export type RecordMatch = z.infer<typeof RecordMatch>;

/** A fact the reply states: what it is, the value as the reply says it, and where it came from. */
export const ReplyFact = z.object({
  fact: z.enum(["customerFirstName", "orderNumber", "accountNumber", "day", "time"]),
  value: z.string(),
  /** `record`: from the matched business record; `caller`: from what the caller said. */
  source: z.enum(["caller", "record"]),
});
export type ReplyFact = z.infer<typeof ReplyFact>;

/** How the reply was written: the id of the template it was rendered from and every fact it states. */
export const ReplyProvenance = z.object({
  template: z.string(),
  facts: z.array(ReplyFact),
});
export type ReplyProvenance = z.infer<typeof ReplyProvenance>;

/** A fact the reasoner takes from a transcript and checks against the recogniser's confidence. */
export const CheckedFact = z.enum(["intent", "orderNumber", "accountNumber", "callbackNumber", "day"]);
export type CheckedFact = z.infer<typeof CheckedFact>;

/**
 * Why a fact is held for review: the recogniser's confidence in the words it came from (the lowest
 * of them) fell below the threshold, or the words were not found in the transcript (confidence 0).
 * It names the fact, never its value: a report or a log line may carry it.
 */
export const FactReview = z.object({
  fact: CheckedFact,
  confidence: z.number().check(z.gte(0), z.lte(1)),
  threshold: z.number().check(z.gte(0), z.lte(1)),
  reason: z.string(),
});
export type FactReview = z.infer<typeof FactReview>;

/** The content of `record.json`: the voicemail's structured record. */
export const VoicemailRecord = z.object({
  intent: Intent,
  entities: Entities,
  summary: z.string(),
  match: RecordMatch,
  replyText: z.string(),
  /** How `replyText` was written; set by reasoners that write it from templates (the local one). */
  reply: z.optional(ReplyProvenance),
  /**
   * The recogniser's confidence in each checked fact found: the lowest confidence of the transcript
   * words it came from. Absent for a fact whose words carry none (an engine that gives none) and
   * in records written before confidences were kept.
   */
  confidence: z.optional(z.partialRecord(CheckedFact, z.number().check(z.gte(0), z.lte(1)))),
  /**
   * The facts held for review: still in `intent` and `entities` as heard, but not used to find the
   * business record and not stated in the reply. Absent or empty when none is.
   */
  review: z.optional(z.array(FactReview)),
  processor: Processor,
});
export type VoicemailRecord = z.infer<typeof VoicemailRecord>;
