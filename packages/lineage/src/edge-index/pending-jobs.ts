import { mapLimit, type ObjectStore } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { jobOfSummaryKey, readStoredSummary } from "../stored-summary";
import { INDEX_RESCAN_MARGIN_MS, type IndexManifest } from "./index-manifest";
import { type IndexRows, jobRows } from "./index-rows";
import { listPendingNotes } from "./pending-notes";

/** Jobs whose lineage summaries the index does not hold as they are now. */
export interface PendingJobs {
  /** Per job, its rows from its summary as it is now. */
  rows: Map<string, IndexRows>;
  /** The watermark an index holding these jobs has (see `IndexManifest.watermark`). */
  watermark: string | null;
  /** The `recent` map such an index has. */
  recent: Record<string, string>;
  /** Summaries that could not be read as a summary of the job their key names (`verify` says why). */
  unreadable: string[];
}

/** Options of {@link pendingJobs}. */
export interface PendingJobsOptions {
  /**
   * How the jobs finished since the manifest are found: `notes`, the notes they left (the default
   * when the manifest has `pendingNotes`), or `listing`, a listing of every summary with its time
   * (what compaction and verify use: it needs no note).
   */
  from?: "notes" | "listing";
  /**
   * With `from: "listing"`: jobs whose summaries are read whatever time the listing gives them
   * (those with notes: S3 lists times in whole seconds, so a summary rewritten within the second
   * it was indexed at lists as unchanged).
   */
  noted?: ReadonlySet<string>;
  /** See {@link INDEX_RESCAN_MARGIN_MS} (the default). */
  marginMs?: number;
  /** Summaries read at once (default 32). */
  concurrency?: number;
}

/**
 * The jobs finished (or rerun) since `manifest`'s index was written, with their rows from their
 * summaries as they are now. From the notes they left (`from: "notes"`): the summary of each noted
 * job. From a listing (`from: "listing"`): one listing of the summaries with their times, then a
 * read of each summary written since the manifest's watermark (less the margin) that its `recent`
 * map does not already hold at that time; without a manifest every summary is pending, and in a
 * store that lists no times every summary is read.
 *
 * @example
 * const { rows } = await pendingJobs(store, (await latestManifest(store))?.manifest);
 */
export async function pendingJobs(
  store: ObjectStore,
  manifest: IndexManifest | undefined,
  options: PendingJobsOptions = {},
): Promise<PendingJobs> {
  const margin = options.marginMs ?? INDEX_RESCAN_MARGIN_MS;
  if ((options.from ?? (manifest?.pendingNotes ? "notes" : "listing")) === "notes") {
    const noted = new Set((await listPendingNotes(store)).map(({ jobId }) => jobId));
    const summaries = [...noted]
      .sort()
      .map((jobId) => ({ key: keys.lineageSummary(jobId), lastModified: undefined }));
    const { rows, unreadable } = await readSummaryRows(store, summaries, options.concurrency);
    return { rows, watermark: manifest?.watermark ?? null, recent: manifest?.recent ?? {}, unreadable };
  }
  const listing = await listSummaries(store);
  const since = manifest?.watermark ? Date.parse(manifest.watermark) - margin : undefined;
  const candidates = listing.filter(({ key, lastModified }) => {
    if (since === undefined || lastModified === undefined) return true;
    if (options.noted?.has(jobOfSummaryKey(key))) return true;
    if (lastModified.getTime() < since) return false;
    return manifest?.recent[jobOfSummaryKey(key)] !== lastModified.toISOString();
  });

  const { rows, unreadable } = await readSummaryRows(store, candidates, options.concurrency);
  const unread = new Set(unreadable);
  return {
    rows,
    ...watermarkOf(
      listing.filter(({ key }) => !unread.has(key)),
      manifest?.watermark ?? null,
      margin,
    ),
    unreadable,
  };
}

/** Each summary's job rows (none for one deleted since it was listed), and the summaries that do not parse. */
async function readSummaryRows(
  store: ObjectStore,
  summaries: readonly ListedSummary[],
  concurrency = 32,
): Promise<{ rows: Map<string, IndexRows>; unreadable: string[] }> {
  const rows = new Map<string, IndexRows>();
  const unreadable: string[] = [];
  await mapLimit(summaries, concurrency, async ({ key, lastModified }) => {
    const jobId = jobOfSummaryKey(key);
    const summary = await readStoredSummary(store, key);
    if (summary === "missing") return;
    if (summary === "unreadable" || summary.jobId !== jobId) {
      unreadable.push(key);
      return;
    }
    rows.set(jobId, jobRows(jobId, summary.records, lastModified?.toISOString() ?? ""));
  });
  return { rows, unreadable: unreadable.sort() };
}

/** A lineage summary as the store lists it; `lastModified` is absent where the store lists no times. */
export interface ListedSummary {
  key: string;
  lastModified: Date | undefined;
}

/** Every lineage summary in the store, in one listing, with its time where the store gives one. */
export async function listSummaries(store: ObjectStore): Promise<ListedSummary[]> {
  const prefix = keys.lineageSummaries;
  const listing = store.listModified
    ? await store.listModified(prefix)
    : (await store.list(prefix)).map((key) => ({ key, lastModified: undefined }));
  return listing.filter(({ key }) => key.endsWith(".json"));
}

/**
 * The watermark and `recent` map of an index holding `indexed` as listed (see `IndexManifest`):
 * the latest listed time (never before `previous`), and each job listed within `marginMs` of it.
 */
export function watermarkOf(
  indexed: readonly ListedSummary[],
  previous: string | null,
  marginMs = INDEX_RESCAN_MARGIN_MS,
): { watermark: string | null; recent: Record<string, string> } {
  const times = indexed.flatMap(({ lastModified }) => (lastModified ? [lastModified.getTime()] : []));
  if (times.length === 0) return { watermark: previous, recent: {} };
  const latest = times.reduce((max, time) => Math.max(max, time), previous ? Date.parse(previous) : 0);
  const recent: Record<string, string> = {};
  for (const { key, lastModified } of indexed) {
    if (lastModified && lastModified.getTime() >= latest - marginMs)
      recent[jobOfSummaryKey(key)] = lastModified.toISOString();
  }
  return { watermark: new Date(latest).toISOString(), recent };
}
