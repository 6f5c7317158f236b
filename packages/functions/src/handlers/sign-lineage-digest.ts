import type { ObjectStore } from "@voxtrail/core";
import { type DigestSigner, writeDigest } from "@voxtrail/lineage";

/** What one run of the lineage signer did. */
export interface DigestRun {
  /** The digest written, or `null` when every finished job was covered already. */
  digest: string | null;
  /** How many job summaries the digest covers (0 with no digest). */
  jobs: number;
}

/**
 * The lineage signer's run, on the model of CloudTrail's hourly digest files: the next digest over
 * every job summary no digest covers yet, chained to the latest, signed by `signer`
 * (packages/lineage/src/digests/), naming the lineage index generation current as it signs (the
 * compactor's latest manifest, by its sha256, which records each index file's): what the query
 * commands check the index against. Nothing new to cover (no job, and the generation named
 * already) writes nothing. Its answer names keys and
 * counts only, never a record's content.
 *
 * @example
 * await signLineageDigest({ store, signer: new KmsSigner({ keyId }) }); // { digest: "lineage-digests/…json", jobs: 12 }
 */
export async function signLineageDigest(deps: {
  store: ObjectStore;
  signer: DigestSigner;
}): Promise<DigestRun> {
  const written = await writeDigest(deps.store, deps.signer);
  return written ? { digest: written.key, jobs: written.jobs } : { digest: null, jobs: 0 };
}
