import { VoxtrailError } from "@voxtrail/core";

/** The lineage records name no artifact by that key, uri or hash. */
export class ArtifactNotInLineage extends VoxtrailError {
  readonly retryable = false;
}
