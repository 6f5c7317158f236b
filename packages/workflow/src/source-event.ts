import { InvalidInput } from "@voxtrail/core";
import * as z from "zod/mini";
import type { SourceIdentity } from "./job-id";

/**
 * The source event every workflow starts from, and the identity of the object it names: the one
 * home of both, for the handlers, the local runtime, the CLI and the stacks' tests.
 */

/** S3 "Object Created" as EventBridge delivers it: only the fields the pipeline reads. */
export const ObjectCreatedEvent = z.object({
  source: z.literal("aws.s3"),
  "detail-type": z.literal("Object Created"),
  time: z.string(),
  detail: z.object({
    bucket: z.object({ name: z.string() }),
    object: z.object({
      key: z.string(),
      size: z.optional(z.number()),
      etag: z.optional(z.string()),
      /** moto's S3 events spell the etag this way; AWS's say `etag`. */
      eTag: z.optional(z.string()),
      "version-id": z.optional(z.string()),
    }),
    /** The S3 API call that created the object (`PutObject`, `CopyObject`, ...): only S3's own events have it. */
    reason: z.optional(z.string()),
  }),
});
export type ObjectCreatedEvent = z.infer<typeof ObjectCreatedEvent>;

/**
 * The object key an event names, as S3's API takes it. Decision: an event S3 wrote (it has
 * `detail.reason`) is form-decoded (`+` to space, then UTF-8 percent-escapes), because S3 documents
 * that encoding for its notifications ("red flower.jpg" becomes "red+flower.jpg") and Powertools for
 * AWS Lambda (Python) `unquote_plus`es the EventBridge key too, though AWS's EventBridge page is
 * silent; an event without `reason` (the voicemail batch workflow builds one from manifest keys)
 * is taken as it is. The evidence, and who decodes where (Ingest, PreparePrompts, OpenBatch for
 * the batch's ItemReader): docs/architecture.md, "Object keys in S3 events".
 *
 * @throws InvalidInput when an S3 event's key is not valid form encoding (naming the problem, not the key).
 *
 * @example
 * objectKeyOf({ ...event, detail: { ...event.detail, object: { key: "incoming/voicemail/a+b%2Bc.wav" }, reason: "PutObject" } });
 * // "incoming/voicemail/a b+c.wav"
 */
export function objectKeyOf(event: Pick<ObjectCreatedEvent, "detail">): string {
  const { key } = event.detail.object;
  if (event.detail.reason === undefined) return key;
  if (/%(?![0-9A-Fa-f]{2})/.test(key)) {
    throw new InvalidInput(
      "the S3 event's object key is not URL-encoded: a '%' is not followed by two hex digits",
    );
  }
  try {
    return decodeURIComponent(key.replaceAll("+", " "));
  } catch {
    throw new InvalidInput("the S3 event's object key is not URL-encoded: its percent-escapes are not UTF-8");
  }
}

/** The source identity an event names: the same for Ingest and the failure recorder. */
export function sourceIdentityOf(event: ObjectCreatedEvent): SourceIdentity {
  const { bucket, object } = event.detail;
  const etag = object.etag ?? object.eTag;
  return {
    bucket: bucket.name,
    key: objectKeyOf(event),
    ...(object["version-id"] ? { versionId: object["version-id"] } : {}),
    ...(etag ? { etag } : {}),
  };
}
