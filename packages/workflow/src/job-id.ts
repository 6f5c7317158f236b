import { createHash } from "node:crypto";

/** The identity of an uploaded object, as an S3 event names it. */
export interface SourceIdentity {
  bucket: string;
  key: string;
  versionId?: string;
  etag?: string;
}

/**
 * A job id derived from the source's identity: one job per object version, the bucket, key and
 * version id an S3 event names (every stage's bucket is versioned, and so is the directory store).
 * - A duplicate delivery of an event names the same version, so the same job: it runs nothing.
 * - Different bytes at one key are a new version, so a new job; each job reads its own version.
 * - A file uploaded again after its erasure is a new version (the erased one is gone), so a new
 *   job, verifiable on its own.
 * Without a version id (an unversioned bucket) the etag stands in for it: then the same bytes
 * uploaded again to one key are the same job.
 */
export function jobIdFor(source: SourceIdentity): string {
  const etag = source.etag?.replaceAll('"', "");
  const identity = source.versionId
    ? [source.bucket, source.key, source.versionId]
    : [source.bucket, source.key, "", etag ?? ""];
  return `vm-${createHash("sha256").update(identity.join("\u0000")).digest("hex").slice(0, 20)}`;
}
