/**
 * @voxtrail/lineage/answers: the auditor's questions (trace, impact, boundaries) answered from a
 * store's records or from its edge index, and what proves an index before it answers: the part of
 * the package a question needs, without the AWS clients that erasing, signing with KMS, exporting to
 * DataZone or reading a bucket load, so the `voxtrail lineage` questions start without them.
 */
export { type BoundariesOptions, type BoundaryCount, boundaries } from "./boundaries";
export { isP256 } from "./digests/digest-signer";
export { defaultSigningKeyPath } from "./digests/local-signer";
export {
  boundariesFromIndex,
  graphFromIndex,
  type IndexEngine,
  impactFromIndex,
  traceFromIndex,
} from "./edge-index/index-answers";
export type { IndexManifest } from "./edge-index/index-manifest";
export { checkIndexFile, type IndexProof, proveIndex } from "./edge-index/index-proof";
export { INDEX_TABLES, type IndexTable } from "./edge-index/index-rows";
export { INDEX_COLUMNS, LATER_COLUMNS, tableParquet } from "./edge-index/index-tables";
export { LineageIndexTampered } from "./edge-index/index-tampered";
export type { IndexLookup } from "./edge-index/index-walk";
export { isFilteredLookup, type LookupFilters, lookupFiltersOf } from "./edge-index/lookup-filters";
export { pendingJobs } from "./edge-index/pending-jobs";
export { type Impact, impact } from "./impact";
export { LineageGraph } from "./lineage-graph";
export { readLineage } from "./lineage-snapshot";
export { jobIdOfArtifactName, type TraceNode, trace } from "./trace";
