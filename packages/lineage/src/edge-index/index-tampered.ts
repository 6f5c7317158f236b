import { VoxtrailError } from "@voxtrail/core";

/**
 * The index is not what was signed: the manifest a trusted digest names has other bytes (or is
 * gone), or a file it names has bytes other than the sha256 it records (or is gone). The message
 * names the digest, the manifest or the file, never a caller's data. A compaction refuses it too,
 * rather than carry an edited file's rows into a generation it would hash afresh. Ask the records instead
 * (`--engine records`); `voxtrail lineage reindex` rebuilds the index from them.
 */
export class LineageIndexTampered extends VoxtrailError {
  readonly retryable = false;
}
