import { createHash } from "node:crypto";

/** The identity of an uploaded object, as an S3 event names it. */
export interface SourceIdentity {
  bucket: string;
  key: string;
  versionId?: string;
  etag?: string;
}

/**
 * A job id derived from the source's identity (bucket, key, and version id or etag), so the same
 * upload always maps to the same job, whichever engine runs it and however often the event arrives.
 */
export function jobIdFor(source: SourceIdentity): string {
  const identity = [
    source.bucket,
    source.key,
    source.versionId ?? "",
    source.etag?.replaceAll('"', "") ?? "",
  ];
  return `vm-${createHash("sha256").update(identity.join("\u0000")).digest("hex").slice(0, 20)}`;
}
