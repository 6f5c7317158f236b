import type { ObjectStore } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { deleteForGood } from "./index-generation";
import { INDEX_MANIFESTS_PREFIX, IndexManifest, LINEAGE_INDEX_PREFIX } from "./index-manifest";

/** Options of {@link vacuumIndex}. */
export interface VacuumOptions {
  /** Generations kept with their files, for readers that started on an earlier one (default 3). */
  keep?: number;
  /**
   * Generations written this recently are kept too, with their files (default two hours, two runs
   * of the stage's hourly signer): readers answer from the generation the latest digest names,
   * which compactions every 15 minutes leave several generations behind until the next signing.
   */
  keepSignedMs?: number;
  /** A file no kept manifest names is deleted only once it is this old (default one hour). */
  graceMs?: number;
  now?: () => Date;
}

/**
 * Deletes what no reader needs any more: manifests before the last `keep` and older than
 * `keepSignedMs`, and table (and filters) files that none of the kept manifests names, once older than `graceMs` (a younger file may belong to a compaction still
 * running, and a younger manifest's generation may be the one such a compaction is about to
 * create). Needs a store that lists times; elsewhere it deletes nothing.
 *
 * @example
 * await vacuumIndex(store, { keep: 3 });
 */
export async function vacuumIndex(store: ObjectStore, options: VacuumOptions = {}): Promise<number> {
  if (!store.listModified) return 0;
  const keep = options.keep ?? 3;
  const cutoff = (options.now?.() ?? new Date()).getTime() - (options.graceMs ?? 60 * 60 * 1000);
  // Jobs' notes are compaction's to delete, once it has indexed their jobs.
  const listing = (await store.listModified(LINEAGE_INDEX_PREFIX)).filter(
    ({ key }) => !key.startsWith(keys.lineageIndexPending),
  );
  const manifests = listing.filter(({ key }) => key.startsWith(INDEX_MANIFESTS_PREFIX));
  const signedSince =
    (options.now?.() ?? new Date()).getTime() - (options.keepSignedMs ?? 2 * 60 * 60 * 1000);
  const kept = new Set(
    manifests
      .filter(
        ({ lastModified }, index) =>
          index >= manifests.length - keep || lastModified.getTime() >= signedSince,
      )
      .map(({ key }) => key),
  );
  const named = new Set<string>();
  for (const key of kept) {
    const manifest = IndexManifest.parse(JSON.parse((await store.getBytes(key)).toString("utf8")));
    for (const { files } of Object.values(manifest.days))
      for (const file of Object.values(files)) named.add(file);
    if (manifest.filters) named.add(manifest.filters.key);
  }
  // Older manifests wait out the grace too: a compaction still running from the generation before
  // one would otherwise find that generation's key free again, and "win" it behind the latest.
  const stale = listing
    .filter(({ key }) => !kept.has(key) && !named.has(key))
    .filter(({ lastModified }) => lastModified.getTime() < cutoff)
    .map(({ key }) => key);
  await deleteForGood(store, stale);
  return stale.length;
}
