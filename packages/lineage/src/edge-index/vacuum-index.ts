import type { ObjectStore } from "@voxtrail/core";
import { deleteForGood } from "./index-generation";
import { INDEX_MANIFESTS_PREFIX, IndexManifest, LINEAGE_INDEX_PREFIX } from "./index-manifest";

/** Options of {@link vacuumIndex}. */
export interface VacuumOptions {
  /** Generations kept with their files, for readers that started on an earlier one (default 3). */
  keep?: number;
  /** A file no kept manifest names is deleted only once it is this old (default one hour). */
  graceMs?: number;
  now?: () => Date;
}

/**
 * Deletes what no reader needs any more: manifests before the last `keep`, and table files that
 * none of those names and that are older than `graceMs` (younger ones may belong to a compaction
 * still running). Needs a store that lists times; elsewhere it deletes nothing.
 *
 * @example
 * await vacuumIndex(store, { keep: 3 });
 */
export async function vacuumIndex(store: ObjectStore, options: VacuumOptions = {}): Promise<number> {
  if (!store.listModified) return 0;
  const keep = options.keep ?? 3;
  const cutoff = (options.now?.() ?? new Date()).getTime() - (options.graceMs ?? 60 * 60 * 1000);
  const listing = await store.listModified(LINEAGE_INDEX_PREFIX);
  const manifests = listing.filter(({ key }) => key.startsWith(INDEX_MANIFESTS_PREFIX)).map(({ key }) => key);
  const kept = manifests.slice(-keep);
  const named = new Set<string>();
  for (const key of kept) {
    const manifest = IndexManifest.parse(JSON.parse((await store.getBytes(key)).toString("utf8")));
    for (const { files } of Object.values(manifest.days))
      for (const file of Object.values(files)) named.add(file);
  }
  const stale = [
    ...manifests.slice(0, -keep),
    ...listing
      .filter(({ key }) => !key.startsWith(INDEX_MANIFESTS_PREFIX) && !named.has(key))
      .filter(({ lastModified }) => lastModified.getTime() < cutoff)
      .map(({ key }) => key),
  ];
  await deleteForGood(store, stale);
  return stale.length;
}
