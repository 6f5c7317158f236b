import { VoxtrailError } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import type { DigestVerification } from "./digests/verify-digests";
import type { SignedCoverage, SummaryState } from "./signed-coverage";

/**
 * `verify`'s `since` cannot be used as given: without trusted keys nothing vouches for the jobs it
 * would not re-hash, and an invalid `Date` is no time.
 */
export class VerifySinceInvalid extends VoxtrailError {
  readonly retryable = false;
}

/** `verify` was to start at the last verified digest, but no digest verifies with the trusted keys. */
export class NoVerifiedDigest extends VoxtrailError {
  readonly retryable = false;
}

/** Where an incremental verify starts re-hashing. */
export interface SincePoint {
  /** ISO 8601. */
  since: string;
  /** With `"last-digest"`: the digest whose end it is. */
  digestKey?: string;
}

/**
 * The time `verify`'s `since` stands for: the `Date` itself, or the end of the latest digest that
 * verifies with the trusted keys. Throws {@link VerifySinceInvalid} without `digests` (no trusted
 * keys) or for an invalid `Date`, {@link NoVerifiedDigest} when no digest verifies.
 */
export function sincePoint(since: Date | "last-digest", digests: DigestVerification | undefined): SincePoint {
  if (!digests) {
    throw new VerifySinceInvalid(
      "verify with since needs trusted keys: the signed digests are what vouch for the jobs it does not re-hash",
    );
  }
  if (since !== "last-digest") {
    if (Number.isNaN(since.getTime())) throw new VerifySinceInvalid("verify's since is an invalid date");
    return { since: since.toISOString() };
  }
  const { latestEnd, latestKey } = digests;
  if (latestEnd === undefined || latestKey === undefined) {
    throw new NoVerifiedDigest(
      `none of the ${digests.digests} lineage digest(s) verifies with the trusted keys: verify without since`,
    );
  }
  return { since: latestEnd, digestKey: latestKey };
}

/**
 * The jobs whose artifacts an incremental verify need not re-hash: signed as they are (summary and
 * every record as a valid digest signed them), no finding against them, and a summary that says
 * it was written before `since`. Everything else (pending, changed, unsigned, later) is re-hashed.
 */
export function signedBefore(
  { since }: SincePoint,
  coverage: SignedCoverage,
  summaries: ReadonlyMap<string, SummaryState>,
  flagged: ReadonlySet<string>,
): Set<string> {
  const before = Date.parse(since);
  return new Set(
    coverage.signed.filter((jobId) => {
      const writtenAt = summaries.get(keys.lineageSummary(jobId))?.writtenAt;
      return !flagged.has(jobId) && writtenAt !== undefined && Date.parse(writtenAt) < before;
    }),
  );
}
