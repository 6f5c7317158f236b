import type { KeyObject } from "node:crypto";

/** Options of `verify`. */
export interface VerifyOptions {
  /** Only this job. */
  jobId?: string;
  /**
   * The public keys whose signatures on lineage digests to trust (the local signing key's, or the
   * stage's KMS key's): with them the records are also checked against the signed digests.
   */
  trustedKeys?: KeyObject[];
  /**
   * Incremental: re-hash the artifacts (and re-read the report) only of jobs whose lineage summary
   * was written at or after this time, or that the signed digests do not cover as they are now
   * (pending, changed, added, or with any finding); `"last-digest"` is the end of the latest digest
   * that verifies with `trustedKeys`. Every record, summary, link and digest is still checked, and
   * every summary against the hash a digest signed: a covered job's records, summary and the
   * artifact hashes they name are vouched for by the signature, and its artifacts and report are
   * only looked for in the listing. Needs `trustedKeys` (else `VerifySinceInvalid`); with
   * `"last-digest"` and no digest that verifies, `NoVerifiedDigest`.
   */
  since?: Date | "last-digest";
  /** Reads in flight at once (default 32). */
  concurrency?: number;
}
