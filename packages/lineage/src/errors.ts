import { VoxtrailError } from "@voxtrail/core";

/** The lineage records name no artifact by that key, uri or hash. */
export class ArtifactNotInLineage extends VoxtrailError {
  readonly retryable = false;
}

/** `verify` was given a graph read from lineage summaries: it checks the records themselves. */
export class VerifyNeedsRecords extends VoxtrailError {
  readonly retryable = false;
}
