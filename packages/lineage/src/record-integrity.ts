import type { LineageSummary } from "@voxtrail/core";
import type { StoredActivity } from "./lineage-snapshot";

/** What the chain and summary checks find wrong with a job's records. */
export type RecordProblem = "record-changed" | "record-missing" | "records-reordered";

/** One finding about a record, named by its key. */
export interface RecordIssue {
  problem: RecordProblem;
  key: string;
  jobId: string;
  detail: string;
}

/**
 * Checks a job's activity records against each other: every record that names the one it follows
 * (`previousRecord`) must find it in the store with the bytes it names (`record-missing`,
 * `record-changed`; `records-reordered` when those bytes are now under another record's key),
 * and it must have started no earlier than that one (`records-reordered`).
 *
 * @example
 * const issues = checkChain("vm-0123456789abcdef0123", graph.jobs.get("vm-0123456789abcdef0123") ?? []);
 */
export function checkChain(jobId: string, activities: readonly StoredActivity[]): RecordIssue[] {
  const byKey = new Map(activities.map((activity) => [activity.key, activity]));
  const issues: RecordIssue[] = [];
  for (const activity of activities) {
    const previous = activity.record.previousRecord;
    if (!previous) continue;
    const named = `${activity.key} follows ${previous.key}`;
    const found = byKey.get(previous.key);
    if (!found) {
      issues.push({
        problem: "record-missing",
        key: previous.key,
        jobId,
        detail: `${named} (sha256 ${previous.sha256}), which the store does not hold: it was deleted`,
      });
      continue;
    }
    const mismatch = hashMismatch(jobId, activities, found, previous.sha256, named);
    if (mismatch) issues.push(mismatch);
    else if (found.record.startedAt > activity.record.startedAt) {
      issues.push({
        problem: "records-reordered",
        key: activity.key,
        jobId,
        detail: `${named}, which started after it (${found.record.startedAt} > ${activity.record.startedAt})`,
      });
    }
  }
  return issues;
}

/**
 * Checks a job's records against its lineage summary's hashes (summaries written before hashes
 * were kept name none): a record whose bytes differ is `record-changed` (or `records-reordered`),
 * one the summary names that the store lacks is `record-missing`.
 */
export function checkSummaryHashes(
  jobId: string,
  summary: { records: ReadonlyArray<Pick<LineageSummary["records"][number], "key" | "sha256">> },
  activities: readonly StoredActivity[],
): RecordIssue[] {
  const byKey = new Map(activities.map((activity) => [activity.key, activity]));
  const issues: RecordIssue[] = [];
  for (const { key, sha256 } of summary.records) {
    if (sha256 === undefined) continue;
    const found = byKey.get(key);
    const named = `the job's lineage summary names ${key}`;
    if (!found) {
      issues.push({
        problem: "record-missing",
        key,
        jobId,
        detail: `${named} (sha256 ${sha256}), which the store does not hold: it was deleted`,
      });
      continue;
    }
    const mismatch = hashMismatch(jobId, activities, found, sha256, named);
    if (mismatch) issues.push(mismatch);
  }
  return issues;
}

/**
 * A record whose bytes are not the `expected` ones: `records-reordered` when those bytes are now
 * under another of the job's records, else `record-changed`; `undefined` when they match (or the
 * record's hash is unknown).
 */
export function hashMismatch(
  jobId: string,
  activities: readonly StoredActivity[],
  found: StoredActivity,
  expected: string,
  named: string,
): RecordIssue | undefined {
  if (found.sha256 === undefined || found.sha256 === expected) return undefined;
  const movedFrom = activities.find((other) => other !== found && other.sha256 === expected);
  return movedFrom
    ? {
        problem: "records-reordered",
        key: found.key,
        jobId,
        detail: `${named} with sha256 ${expected}: those bytes are now under ${movedFrom.key}`,
      }
    : {
        problem: "record-changed",
        key: found.key,
        jobId,
        detail: `${named} with sha256 ${expected}; the record has ${found.sha256}: it was changed`,
      };
}
