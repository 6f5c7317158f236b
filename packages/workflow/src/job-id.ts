import { createHash } from "node:crypto";

/** The identity of an uploaded object, as an S3 event names it. */
export interface SourceIdentity {
  bucket: string;
  key: string;
  versionId?: string;
  etag?: string;
}

/**
 * A job id derived from the source's identity: bucket, key and content (the etag; the version id
 * only when no etag is known). The same upload maps to the same job whichever engine runs it and
 * however often the event arrives, and so does the same content uploaded again to the same key
 * (a versioned bucket gives it a new version id, but it is the same voicemail).
 */
export function jobIdFor(source: SourceIdentity): string {
  const etag = source.etag?.replaceAll('"', "");
  const identity = [source.bucket, source.key, etag ? "" : (source.versionId ?? ""), etag ?? ""];
  return `vm-${createHash("sha256").update(identity.join("\u0000")).digest("hex").slice(0, 20)}`;
}
