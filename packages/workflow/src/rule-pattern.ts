import { BATCH_INCOMING_PREFIX, VOICEMAIL_INCOMING_PREFIX } from "./key-layout";
import { PROMPTS_INCOMING_PREFIX } from "./prompts-layout";

/** An EventBridge event pattern (the subset of the pattern language this project uses). */
export type EventPattern = { [field: string]: EventPattern | Array<string | { prefix: string }> };

/**
 * The EventBridge rule pattern that starts the voicemail workflow: S3 "Object Created" in the
 * stage's bucket, under `incoming/voicemail/`.
 *
 * @example
 * voicemailRulePattern("voxtrail-dev-bucket");
 * // { source: ["aws.s3"], "detail-type": ["Object Created"], detail: { bucket: { name: [...] }, object: { key: [{ prefix: "incoming/voicemail/" }] } } }
 */
export const voicemailRulePattern = objectCreatedUnder(VOICEMAIL_INCOMING_PREFIX);

/** The rule pattern that starts the voicemail batch workflow: a manifest under `incoming/batches/`. */
export const voicemailBatchRulePattern = objectCreatedUnder(BATCH_INCOMING_PREFIX);

/**
 * The EventBridge rule pattern that starts the prompts workflow: S3 "Object Created" in the
 * stage's bucket, under `incoming/prompts/`.
 *
 * @example
 * promptsRulePattern("voxtrail-dev-bucket").detail; // { bucket: {...}, object: { key: [{ prefix: "incoming/prompts/" }] } }
 */
export const promptsRulePattern = objectCreatedUnder(PROMPTS_INCOMING_PREFIX);

/** S3 "Object Created" in a bucket under `prefix`: the pattern every workflow starts on, by bucket. */
function objectCreatedUnder(prefix: string): (bucket: string) => EventPattern {
  return (bucket) => ({
    source: ["aws.s3"],
    "detail-type": ["Object Created"],
    detail: { bucket: { name: [bucket] }, object: { key: [{ prefix }] } },
  });
}
