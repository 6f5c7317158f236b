import type { ObjectStore } from "@voxtrail/core";
import {
  type CompactOptions,
  compactLineageIndex,
  latestManifest,
  type SymlinkUpdate,
  writeAthenaSymlinks,
} from "@voxtrail/lineage/edge-index";

/** What one run of the lineage index compactor did, as counts (no key, no job id). */
export interface IndexRun {
  /** The index's generation now, or `null` while the store has no index (no finished job yet). */
  generation: number | null;
  /** Jobs whose rows this run (re)wrote; 0 when the index held every summary as it is. */
  jobsWritten: number;
  /** Jobs in the index now. */
  jobs: number;
  /** Days (partitions) in the index now. */
  days: number;
  /** Lineage summaries that could not be read as one (`voxtrail lineage verify` says which and why). */
  unreadableSummaries: number;
  /** What the Athena symlinks needed to name the latest generation's files. */
  symlinks: SymlinkUpdate;
}

/**
 * Passes over the symlinks at most: each pass ends by checking that no compaction made a newer
 * generation meanwhile (one that raced this run may have written its symlinks first).
 */
const SYMLINK_PASSES = 5;

/**
 * The lineage index compactor's run: brings the edge index up to date with the jobs' lineage
 * summaries (`compactLineageIndex`: a new generation when jobs finished or reran, with the
 * vacuum of what no reader needs), then makes the Athena symlinks name the files of the latest
 * generation (`writeAthenaSymlinks`), however that generation was written (this run, another
 * compaction, a `voxtrail lineage reindex`). A pass that ends with a newer generation than it
 * started from starts again, so the symlinks end as the latest manifest says. Its answer is
 * counts only, never a key or a record's content.
 *
 * @example
 * await updateLineageIndex({ store }); // { generation: 7, jobsWritten: 3, jobs: 120, days: 4, unreadableSummaries: 0, symlinks: {...} }
 */
export async function updateLineageIndex(deps: {
  store: ObjectStore;
  options?: CompactOptions;
}): Promise<IndexRun> {
  const { store } = deps;
  const update = await compactLineageIndex(store, deps.options);
  const symlinks: SymlinkUpdate = { written: 0, unchanged: 0, deleted: 0 };
  let latest = await latestManifest(store);
  for (let pass = 1; latest && pass <= SYMLINK_PASSES; pass++) {
    const done = await writeAthenaSymlinks(store, latest.manifest);
    symlinks.written += done.written;
    symlinks.deleted += done.deleted;
    symlinks.unchanged = done.unchanged;
    const now = await latestManifest(store);
    if (now?.key === latest.key) break;
    latest = now;
  }
  return {
    generation: latest?.manifest.generation ?? null,
    jobsWritten: update.jobsWritten,
    jobs: latest?.manifest.jobs ?? update.jobs,
    days: Object.keys(latest?.manifest.days ?? {}).length,
    unreadableSummaries: update.unreadableSummaries.length,
    symlinks,
  };
}
