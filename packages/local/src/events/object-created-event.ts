import { randomUUID } from "node:crypto";
import type { StoredObject } from "@voxtrail/core";

/** Where the simulated events say they come from. */
export interface EventOrigin {
  account: string;
  region: string;
}

/** The origin the local runtime uses: AWS's documentation account id, a placeholder region. */
export const LOCAL_ORIGIN: EventOrigin = { account: "000000000000", region: "local" };

/**
 * The S3 "Object Created" event EventBridge would deliver for a PutObject, shaped like AWS's
 * documented sample (fixtures/events/s3-object-created.json). The key is form-encoded as S3 encodes
 * keys in its events ({@link s3EventKey}), so the local path exercises the handlers' decoding. One
 * difference: `time` keeps milliseconds, where S3's events have whole seconds, so local queue
 * delays are measurable.
 */
export function objectCreatedEvent(bucket: string, object: StoredObject, time: Date, origin = LOCAL_ORIGIN) {
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Object Created",
    source: "aws.s3",
    account: origin.account,
    time: time.toISOString(),
    region: origin.region,
    resources: [`arn:aws:s3:::${bucket}`],
    detail: {
      version: "0",
      bucket: { name: bucket },
      object: {
        key: s3EventKey(object.key),
        size: object.bytes,
        ...(object.etag ? { etag: object.etag.replaceAll('"', "") } : {}),
        ...(object.versionId ? { "version-id": object.versionId } : {}),
        sequencer: time.getTime().toString(16).toUpperCase().padStart(16, "0"),
      },
      "request-id": randomUUID().replaceAll("-", "").slice(0, 16).toUpperCase(),
      requester: origin.account,
      "source-ip-address": "127.0.0.1",
      reason: "PutObject",
    },
  };
}

/**
 * An object key as S3 writes it in an event: form-encoded, each `/`-separated segment
 * percent-encoded as UTF-8 (`encodeURIComponent`, plus `!'()*`) with spaces as `+`; the `/`s stay,
 * as the rules' key prefixes need.
 *
 * @example
 * s3EventKey("incoming/voicemail/a b+c%(1).wav"); // "incoming/voicemail/a+b%2Bc%25%281%29.wav"
 */
export function s3EventKey(key: string): string {
  return key
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment)
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replaceAll("%20", "+"),
    )
    .join("/");
}
