/**
 * @voxtrail/lineage/edge-index: the lineage edge index: its tables and SQL, compaction,
 * generations, Athena symlinks, and the answers read from it.
 */
export { ATHENA_SYMLINKS_PREFIX, type SymlinkUpdate, writeAthenaSymlinks } from "./athena-symlinks";
export { type CompactOptions, compactLineageIndex, type IndexUpdate, reindexLineage } from "./compact-index";
export {
  boundariesFromIndex,
  graphFromIndex,
  type IndexEngine,
  IndexWalkTooDeep,
  impactFromIndex,
  traceFromIndex,
} from "./index-answers";
export { deleteForGood, writeGeneration } from "./index-generation";
export {
  IndexManifest,
  LINEAGE_INDEX_PREFIX,
  latestManifest,
  readManifest,
  type StoredManifest,
} from "./index-manifest";
export {
  checkIndexFile,
  type IndexProof,
  type IndexUnprovenReason,
  LineageIndexTampered,
  proveIndex,
} from "./index-proof";
export { INDEX_TABLES, type IndexRows, type IndexTable, jobRows } from "./index-rows";
export {
  ALL_RECORDS_SQL,
  BOUNDARIES_SQL,
  IMPACT_RECORDS_SQL,
  TRACE_RECORDS_SQL,
  WALK_DEPTH,
} from "./index-sql";
export { INDEX_COLUMNS, LATER_COLUMNS, readTableParquet, tableParquet } from "./index-tables";
export type { IndexLookup } from "./index-walk";
export { pendingJobs } from "./pending-jobs";
export { vacuumIndex } from "./vacuum-index";
export { checkLineageIndex, type IndexCheck } from "./verify-index";
