import { VoxtrailError } from "@voxtrail/core";

/** The lineage records name no artifact by that key, uri or hash. */
export class ArtifactNotInLineage extends VoxtrailError {
  readonly retryable = false;
}

/** `verify` was given a graph read from lineage summaries: it checks the records themselves. */
export class VerifyNeedsRecords extends VoxtrailError {
  readonly retryable = false;
}

/**
 * An erasure named a key under which several callers' uploads were read: erasing by it would
 * reach data that is not the one meant. The message lists each upload's hash and jobs to choose from.
 */
export class ErasureAmbiguous extends VoxtrailError {
  readonly retryable = false;
}

/**
 * An erasure waited for a job of its scope that still runs, until it gave up: nothing was erased.
 * Erasing again once the job ends erases it whole.
 */
export class ErasureWaitedTooLong extends VoxtrailError {
  readonly retryable = true;
}

/**
 * `lineage repair-chain` found something other than a fork in the digest chain (a digest deleted,
 * edited, unsigned or signed by another key): repairing would hide it. The message names the digest.
 */
export class ChainNotRepairable extends VoxtrailError {
  readonly retryable = false;
}
