import { isSchemaMismatch, LineageSummary, ObjectNotFound, type ObjectStore, readJson } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";

/** The job a summary key names (`lineage-summaries/<jobId>.json`). */
export function jobOfSummaryKey(key: string): string {
  return key.slice(keys.lineageSummaries.length, -".json".length);
}

/**
 * The lineage summary under `key`: `"missing"` when there is none (deleted since it was listed),
 * `"unreadable"` when it is not JSON of the summary's schema (`verify` says why).
 *
 * @example
 * const summary = await readStoredSummary(store, keys.lineageSummary(jobId));
 * if (typeof summary !== "string") summary.records; // the job's activity records, copied
 */
export async function readStoredSummary(
  store: ObjectStore,
  key: string,
): Promise<LineageSummary | "missing" | "unreadable"> {
  try {
    return await readJson(store, key, LineageSummary);
  } catch (error) {
    if (error instanceof ObjectNotFound) return "missing";
    if (error instanceof SyntaxError || isSchemaMismatch(error)) return "unreadable";
    throw error;
  }
}
