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
  /**
   * With `trustedKeys`: how long after its summary was written a finished job may go unsigned
   * before it is `job-not-signed` (default {@link DEFAULT_SIGNING_GRACE_MS}). A job a run still in
   * progress on the store will sign (its marker under `local-runs/`) is pending whatever its age.
   */
  signingGraceMs?: number;
  /**
   * With `trustedKeys`: the chain's head as an auditor kept it (`verify` reports it as
   * `signatures.head`). A valid chain that ends before it is `digest-head-missing`; a digest at its
   * sequence with other bytes, `digest-head-replaced`.
   */
  expectHead?: { sequence: number; sha256?: string };
  /** The time the grace period is counted back from (default: now). */
  now?: Date;
}

/**
 * The signing grace period's default: two runs of the stage's signer, which signs every hour
 * (`LINEAGE_SIGNING_SCHEDULE`). A CLI run signs as it ends, so `voxtrail lineage verify` of a
 * directory store gives none.
 */
export const DEFAULT_SIGNING_GRACE_MS = 2 * 60 * 60 * 1000;
