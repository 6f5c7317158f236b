import * as z from "zod/mini";
import { ServiceJobIdentity } from "./activity-record";
import { ArtifactKind } from "./artifact";

/** One erased object: what it was (kind, key, hash, size), never what it held. */
export const ErasedArtifact = z.object({
  /** `unrecorded`: an object under the job's artifact prefix that no record names (a side file). */
  kind: z.union([ArtifactKind, z.literal("unrecorded")]),
  key: z.string(),
  uri: z.string(),
  sha256: z.string(),
  bytes: z.number().check(z.int(), z.nonnegative()),
  /** Whether the object was still there to delete when the erasure ran. */
  existed: z.boolean(),
  /**
   * The versions deleted for good: a source's own version (other uploads to its key are other
   * jobs'), every version of a derived key. Absent where the store named no versions: then the
   * key's current object was deleted if it still held these bytes.
   */
  versionIds: z.optional(z.array(z.string())),
});
export type ErasedArtifact = z.infer<typeof ErasedArtifact>;

/**
 * The record an erasure leaves for one job, at `erasures/<jobId>.json`: the source and every
 * derived artifact that was deleted, by hash. The job's activity records are kept: they hold
 * pointers and hashes only, and are what lets `verify` tell an erased chain from a broken one.
 */
export const ErasureRecord = z.object({
  schemaVersion: z.literal(1),
  erasureId: z.string(),
  jobId: z.string(),
  erasedAt: z.string(),
  /** The source the erasure was asked for, by key. */
  sourceKey: z.string(),
  erased: z.array(ErasedArtifact),
  /** Activity records kept as the audit trail of the erased chain. */
  keptRecords: z.array(z.string()),
  /**
   * The managed-service jobs of the chain (a Transcribe job keeps the audio's and the output's
   * locations), deleted with it: where they were deleted, `deleted` says how it went.
   */
  serviceJobs: z.optional(
    z.array(z.extend(ServiceJobIdentity, { deleted: z.enum(["deleted", "already-gone", "not-reachable"]) })),
  ),
});
export type ErasureRecord = z.infer<typeof ErasureRecord>;
