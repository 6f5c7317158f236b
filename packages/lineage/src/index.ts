/**
 * @voxtrail/lineage: the auditor's queries over a store's lineage (trace, impact, boundaries,
 * verify, erase, OpenLineage export) and the signed digests. The edge index that answers them at
 * scale is `@voxtrail/lineage/edge-index`.
 */
export { type BoundariesOptions, type BoundaryCount, boundaries } from "./boundaries";
export { postToDataZone } from "./datazone";
export {
  DigestChainContended,
  DigestFile,
  LINEAGE_DIGESTS_PREFIX,
  listDigestKeys,
  sha256Hex,
  signatureKey,
  writeDigest,
} from "./digests/digest-file";
export { type DigestSigner, isP256 } from "./digests/digest-signer";
export { KmsSigner } from "./digests/kms-signer";
export { defaultSigningKeyPath, LocalSigner } from "./digests/local-signer";
export { type ChainRepair, repairForkedChain } from "./digests/repair-chain";
export { lastVerifiedDigest, verifyDigests } from "./digests/verify-digests";
export { type ErasureResult, erase } from "./erase";
export { type Impact, impact } from "./impact";
export { LineageGraph } from "./lineage-graph";
export { type ReadLineageOptions, readLineage } from "./lineage-snapshot";
export { type LocalRun, markLocalRun } from "./local-runs";
export { openLineageStore } from "./open-store";
export { openLineageEvents } from "./openlineage";
export { StepFunctionsLiveness } from "./step-functions-liveness";
export { jobIdOfArtifactName, type TraceNode, trace } from "./trace";
export { transcribeJobDeleter } from "./transcribe-job-deleter";
export { DEFAULT_SIGNING_GRACE_MS, type VerifyOptions, type VerifyResult, verify } from "./verify";
