import { keys } from "@voxtrail/workflow";
import type { DigestVerification } from "./digests/verify-digests";
import type { LineageGraph } from "./lineage-graph";
import type { StoredActivity } from "./lineage-snapshot";
import { hashMismatch, type RecordIssue } from "./record-integrity";

/** What the signed digests show about jobs: removed, added or summarised differently. */
export type CoverageProblem = "job-deleted" | "job-not-digested" | "record-not-digested" | "summary-changed";

/** One finding against the signed digests. */
export interface CoverageIssue {
  problem: CoverageProblem | RecordIssue["problem"];
  key: string;
  jobId: string;
  detail: string;
}

/** A job's lineage summary as the store holds it: the hash of its bytes, and when it says it was written. */
export interface SummaryState {
  sha256: string;
  /** `undefined` when the bytes are not a lineage summary. */
  writtenAt: string | undefined;
}

/** How the store's jobs stand against the signed digests. */
export interface SignedCoverage {
  /** Jobs whose records and summary are as a valid digest signed them. */
  signed: string[];
  /** Jobs no valid digest covers as they are yet (running, or finished after the latest digest). */
  pending: string[];
  issues: CoverageIssue[];
}

/**
 * Checks the lineage against what valid digests signed, as CloudTrail validation checks log files
 * against digest files: every signed record must be in the store with its signed bytes (else
 * `record-missing`, `record-changed` or `records-reordered`; a job none of whose signed records is
 * left, summary gone too, is `job-deleted`); each covered job's summary must be the one last signed
 * unless it was rewritten after the latest digest (a rerun not signed yet: pending), else
 * `summary-changed`; a finished job no digest covers, whose summary says it was written before the
 * latest digest, was added after the fact (`job-not-digested`), as is a record of a signed job that
 * no digest names while its job is not pending (`record-not-digested`). What was written after the
 * latest digest cannot be told from an addition until the next digest signs it: those jobs are
 * listed as pending. `summaries` holds the summaries as read, by key (none: the job has no summary).
 *
 * @example
 * const coverage = checkSignedCoverage(graph, await verifyDigests(store, [publicKey]), summaries);
 */
export function checkSignedCoverage(
  graph: LineageGraph,
  digests: DigestVerification,
  summaries: ReadonlyMap<string, SummaryState>,
  jobId?: string,
): SignedCoverage {
  const issues: CoverageIssue[] = [];
  const latestEnd = digests.latestEnd ?? "";
  const byKey = new Map(graph.activities.map((activity) => [activity.key, activity]));
  const missingByJob = new Map<string, string[]>();
  const signedByJob = new Map<string, number>();
  for (const [key, signed] of digests.records) {
    if (jobId !== undefined && signed.jobId !== jobId) continue;
    signedByJob.set(signed.jobId, (signedByJob.get(signed.jobId) ?? 0) + 1);
    const found = byKey.get(key);
    if (!found) {
      missingByJob.set(signed.jobId, [...(missingByJob.get(signed.jobId) ?? []), key]);
      continue;
    }
    const named = `digest ${signed.digestKey} signed ${key}`;
    const mismatch = hashMismatch(
      signed.jobId,
      graph.jobs.get(signed.jobId) ?? [],
      found,
      signed.sha256,
      named,
    );
    if (mismatch) issues.push(mismatch);
  }
  const jobIds = jobId === undefined ? new Set([...graph.jobs.keys(), ...digests.covered.keys()]) : [jobId];
  const pending: string[] = [];
  const signed: string[] = [];
  for (const id of jobIds) {
    const summary = summaries.get(keys.lineageSummary(id));
    const missing = missingByJob.get(id) ?? [];
    if (missing.length > 0 && missing.length === signedByJob.get(id) && !summary) {
      issues.push({
        problem: "job-deleted",
        key: keys.lineagePrefix(id),
        jobId: id,
        detail: `a signed digest covers job ${id}, but its ${missing.length} record(s) and its lineage summary are gone: it was deleted`,
      });
      continue;
    }
    for (const key of missing) {
      issues.push({
        problem: "record-missing",
        key,
        jobId: id,
        detail: `a signed digest names ${key}, which the store does not hold: it was deleted`,
      });
    }
    const state = coverageOf(id, summary, digests, latestEnd);
    if (state.issue) issues.push(state.issue);
    if (state.pending) pending.push(id);
    else if (!state.issue) {
      const unsigned = (graph.jobs.get(id) ?? []).filter((activity) => !digests.records.has(activity.key));
      issues.push(...unsigned.map((activity) => notDigested(id, activity)));
      if (unsigned.length === 0 && missing.length === 0) signed.push(id);
    }
  }
  return { signed, pending, issues };
}

/** Whether a job is signed as it is, pending a digest, or changed or added since one. */
function coverageOf(
  jobId: string,
  summary: SummaryState | undefined,
  digests: DigestVerification,
  latestEnd: string,
): { pending?: true; issue?: CoverageIssue } {
  const covered = digests.covered.get(jobId);
  const key = keys.lineageSummary(jobId);
  const afterLatest = summary?.writtenAt !== undefined && summary.writtenAt > latestEnd;
  if (!covered) {
    if (!summary || afterLatest) return { pending: true };
    return {
      issue: {
        problem: "job-not-digested",
        key,
        jobId,
        detail: `job ${jobId}'s summary says it was written at ${summary.writtenAt ?? "an unknown time"}, before the latest signed digest (${latestEnd}), which does not cover it: it was added after the fact`,
      },
    };
  }
  if (summary?.sha256 === covered.summarySha256) return {};
  if (afterLatest) return { pending: true };
  return {
    issue: {
      problem: "summary-changed",
      key,
      jobId,
      detail: summary
        ? `job ${jobId}'s summary has sha256 ${summary.sha256}; digest ${covered.digestKey} signed ${covered.summarySha256}: it was changed`
        : `digest ${covered.digestKey} signed job ${jobId}'s summary, which the store no longer holds`,
    },
  };
}

function notDigested(jobId: string, activity: StoredActivity): CoverageIssue {
  return {
    problem: "record-not-digested",
    key: activity.key,
    jobId,
    detail: `${activity.key} belongs to job ${jobId}, which a signed digest covers, but no digest names it: it was added after the fact`,
  };
}
