import { type ObjectStore, VoxtrailError } from "@voxtrail/core";
import { readLineage } from "../lineage-snapshot";
import { jobOfSummaryKey } from "../stored-summary";
import { type WrittenGeneration, writeGeneration } from "./index-generation";
import { latestManifest } from "./index-manifest";
import { type IndexRows, jobRows } from "./index-rows";
import { listSummaries, type PendingJobsOptions, pendingJobs, watermarkOf } from "./pending-jobs";
import { clearPendingNotes, listPendingNotes, type PendingNote } from "./pending-notes";
import { vacuumIndex } from "./vacuum-index";

/** Other compactions kept writing the next generation first, every time this one tried. */
export class IndexCompactionConflict extends VoxtrailError {
  readonly retryable = true;
}

/** What a compaction or reindex did. */
export interface IndexUpdate {
  /** The manifest now current (`undefined`: the store has no index and nothing to put in one). */
  manifestKey?: string;
  generation?: number;
  /** Jobs whose rows this run wrote; 0 when the index already held every summary as it is. */
  jobsWritten: number;
  /** Jobs in the index now. */
  jobs: number;
  /** Summaries that could not be read as one (see `verify`). */
  unreadableSummaries: string[];
}

/** Options of {@link compactLineageIndex}. */
export interface CompactOptions extends PendingJobsOptions {
  /** Tries before giving up to other compactions (default 5). */
  attempts?: number;
}

/**
 * Brings the lineage edge index up to date with the jobs' lineage summaries: each job finished or
 * rerun since the last compaction gets its rows (edges, flows, records) rewritten into its day's
 * files as a new generation, and the notes those jobs left are deleted. Safe beside running jobs (a summary written meanwhile is picked up
 * next time), beside other compactions (one wins each generation; the other starts again from
 * it) and after a crash (files no manifest names are never read, and are vacuumed later).
 *
 * @example
 * const update = await compactLineageIndex(store);
 * console.log(`${update.jobsWritten} job(s) indexed, ${update.jobs} in all`);
 */
export async function compactLineageIndex(
  store: ObjectStore,
  options: CompactOptions = {},
): Promise<IndexUpdate> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const base = await latestManifest(store);
    // Listed before the summaries: each note's summary is in the listing, so indexed below.
    const notes = await listPendingNotes(store);
    const noted = new Set(notes.map(({ jobId }) => jobId));
    const pending = await pendingJobs(store, base?.manifest, { ...options, from: "listing", noted });
    if (pending.rows.size === 0) {
      await clearPendingNotes(store, notes);
      return {
        ...(base ? { manifestKey: base.key, generation: base.manifest.generation } : {}),
        jobsWritten: 0,
        jobs: base?.manifest.jobs ?? 0,
        unreadableSummaries: pending.unreadable,
      };
    }
    const written = await writeGeneration(store, base?.manifest, {
      jobs: pending.rows,
      watermark: pending.watermark,
      recent: pending.recent,
    });
    if (written) return finish(store, written, notes, pending.rows.size, pending.unreadable);
  }
  throw new IndexCompactionConflict(
    `the lineage index changed under this compaction ${attempts} times: other compactions are running; try again`,
  );
}

/**
 * Rebuilds the index from the activity records themselves, the source of truth (not from the
 * summaries): every job with records, as one new generation that drops everything before it.
 *
 * @example
 * const { jobs } = await reindexLineage(store);
 */
export async function reindexLineage(store: ObjectStore, options: CompactOptions = {}): Promise<IndexUpdate> {
  const base = await latestManifest(store);
  // The notes and summaries' times first: a summary written after these listings is picked up by
  // the next compaction (and its note, left after them, stays).
  const notes = await listPendingNotes(store);
  const summaries = await listSummaries(store);
  const snapshot = await readLineage(store, { from: "records" });
  const byJob = new Map<string, typeof snapshot.activities>();
  for (const entry of snapshot.activities) {
    const list = byJob.get(entry.record.jobId);
    if (list) list.push(entry);
    else byJob.set(entry.record.jobId, [entry]);
  }
  const modified = new Map(
    summaries.map(({ key, lastModified }) => [jobOfSummaryKey(key), lastModified?.toISOString() ?? ""]),
  );
  const jobs = new Map<string, IndexRows>();
  for (const [jobId, activities] of byJob)
    jobs.set(jobId, jobRows(jobId, activities, modified.get(jobId) ?? ""));
  const written = await writeGeneration(store, base?.manifest, {
    jobs,
    ...watermarkOf(summaries, null, options.marginMs),
    replaceAll: true,
  });
  if (!written) {
    throw new IndexCompactionConflict(
      "a compaction wrote the lineage index while it was being rebuilt; run reindex again",
    );
  }
  return finish(store, written, notes, jobs.size, []);
}

/** After a generation is written: the notes it answers deleted, the index vacuumed. */
async function finish(
  store: ObjectStore,
  written: WrittenGeneration,
  notes: readonly PendingNote[],
  jobsWritten: number,
  unreadableSummaries: string[],
): Promise<IndexUpdate> {
  await clearPendingNotes(store, notes);
  await vacuumIndex(store);
  return {
    manifestKey: written.key,
    generation: written.manifest.generation,
    jobsWritten,
    jobs: written.manifest.jobs,
    unreadableSummaries,
  };
}
