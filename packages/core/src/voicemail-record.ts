import { z } from "zod";
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
export const BusinessRecord = z
  .object({
    type: z.enum(["order", "account"]),
    id: z.string(),
    accountNumber: z.string().optional(),
    orderNumber: z.string().optional(),
    phone: z.string().optional(),
    customerName: z.string().optional(),
    status: z.string().optional(),
  })
  .catchall(z.unknown());
export type BusinessRecord = z.infer<typeof BusinessRecord>;

/** Entities found in the voicemail; a later correction by the caller replaces the earlier value. */
export const Entities = z.object({
  callbackNumber: z.string().optional(),
  orderNumber: z.string().optional(),
  accountNumber: z.string().optional(),
  day: z.string().optional(),
  time: z.string().optional(),
  callerName: z.string().optional(),
});
export type Entities = z.infer<typeof Entities>;

/** How the business-record lookup went. */
export const RecordMatch = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("found"), matchedOn: z.string(), record: BusinessRecord }),
  z.object({ outcome: z.literal("not-found"), searchedFor: z.array(z.string()) }),
]);
export type RecordMatch = z.infer<typeof RecordMatch>;

/** The content of `record.json`: the voicemail's structured record. */
export const VoicemailRecord = z.object({
  intent: Intent,
  entities: Entities,
  summary: z.string(),
  match: RecordMatch,
  replyText: z.string(),
  processor: Processor,
});
export type VoicemailRecord = z.infer<typeof VoicemailRecord>;
