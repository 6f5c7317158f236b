import { type ErasedArtifact, type ObjectStore, SOURCE_KINDS } from "@voxtrail/core";
import { keys, promptKeys } from "@voxtrail/workflow";

/**
 * The prefixes only the job writes under: a voicemail job's artifacts and report, a prompts job's
 * folder. Everything there is the job's, recorded or not, so an erasure takes it and nothing may
 * be there after one.
 */
export function ownKeyPrefixes(jobId: string): string[] {
  return [keys.artifactPrefix(jobId), keys.report(jobId), promptKeys.jobPrefix(jobId)];
}

/**
 * Deletes what an erasure record lists: each recorded version for good; without versions, the
 * key's current object only if it still holds the erased bytes (anything else there is another
 * upload). Deleting what is already gone is not an error, so an interrupted erasure can be re-run.
 */
export async function deleteErased(store: ObjectStore, erased: ErasedArtifact[]): Promise<void> {
  for (const artifact of erased) {
    if (artifact.versionIds) {
      for (const versionId of artifact.versionIds) await store.delete(artifact.key, { versionId });
    } else if ((await store.head(artifact.key))?.sha256 === artifact.sha256) {
      await store.delete(artifact.key);
    }
  }
}

/**
 * Whether an erased object is still (or again) in the store. A source's key may hold later
 * uploads, which are other jobs: only its recorded version (or, without one, the same bytes)
 * counts. A derived key belongs to the erased job alone: anything under it counts.
 */
export async function isLeftover(store: ObjectStore, artifact: ErasedArtifact): Promise<boolean> {
  for (const versionId of artifact.versionIds ?? []) {
    if (await store.head(artifact.key, { versionId })) return true;
  }
  const current = await store.head(artifact.key);
  if (!current) return false;
  const isSource = artifact.kind !== "unrecorded" && SOURCE_KINDS.includes(artifact.kind);
  if (!isSource) return true;
  return artifact.versionIds === undefined && current.sha256 === artifact.sha256;
}
