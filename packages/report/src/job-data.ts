import { ActivityRecord, JobReport, type ObjectStore, readJson } from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";

/** What the store holds about one job: its report (once written) and its activity records. */
export interface JobData {
  jobId: string;
  report?: JobReport;
  /** One per stage attempt, in the order they started. */
  records: ActivityRecord[];
}

/** Which jobs to read: one job, or every job with a report. */
export type JobSelection = { jobId: string } | { all: true };

/**
 * Reads jobs from a store: `reports/<jobId>.json` and every activity record under
 * `lineage/<jobId>/`. Documents that do not match their schema are skipped and counted, so one
 * damaged file does not hide the rest.
 *
 * @example
 * const { jobs } = await readJobs(new DirectoryStore({ root: ".voxtrail" }), { all: true });
 */
export async function readJobs(
  store: ObjectStore,
  selection: JobSelection,
): Promise<{ jobs: JobData[]; unreadable: string[] }> {
  const unreadable: string[] = [];
  // Whatever fails to read (missing, not JSON, another shape) is counted and skipped.
  const read = <S extends Parameters<typeof readJson>[2]>(key: string, schema: S) =>
    readJson(store, key, schema).catch(() => {
      unreadable.push(key);
      return undefined;
    });
  const jobIds =
    "jobId" in selection
      ? [selection.jobId]
      : (await store.list(KEY_FOLDERS.reports))
          .map(keys.jobOfReport)
          .filter((jobId): jobId is string => jobId !== undefined);
  const jobs: JobData[] = [];
  for (const jobId of jobIds) {
    const report = (await store.head(keys.report(jobId)))
      ? await read(keys.report(jobId), JobReport)
      : undefined;
    const records: ActivityRecord[] = [];
    for (const key of await store.list(keys.lineagePrefix(jobId))) {
      const record = await read(key, ActivityRecord);
      if (record) records.push(record);
    }
    records.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
    if (report || records.length > 0) jobs.push({ jobId, ...(report ? { report } : {}), records });
  }
  return { jobs, unreadable };
}
