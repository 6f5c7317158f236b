import { VOICEMAIL_INCOMING_PREFIX } from "./key-layout";

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
export function voicemailRulePattern(bucket: string): EventPattern {
  return {
    source: ["aws.s3"],
    "detail-type": ["Object Created"],
    detail: {
      bucket: { name: [bucket] },
      object: { key: [{ prefix: VOICEMAIL_INCOMING_PREFIX }] },
    },
  };
}
