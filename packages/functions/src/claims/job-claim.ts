import {
  type DuplicateDelivery,
  type ExecutionLiveness,
  JobClaim,
  JobReport,
  ObjectNotFound,
  type ObjectStore,
  readJson,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";

/** What claiming a job decided: run it (as its `run`-th run), or report the delivery as a duplicate. */
export type ClaimDecision = { claimed: true; run: number } | ({ claimed: false } & DuplicateDelivery);

/** The facts a claim is made from. */
export interface ClaimRequest {
  jobId: string;
  executionId: string;
  source: JobClaim["source"];
  now: Date;
}

/**
 * Claims a job for an execution before any work, by creating `claims/<jobId>/run-NN.json` only
 * if absent (S3 `If-None-Match: *`; the directory store's `link`). Of two deliveries of one
 * upload exactly one runs the job. The latest run decides what a delivery is:
 * - claimed by this execution: a retry of this execution's own Ingest, which goes on;
 * - its report says succeeded: a duplicate of a completed job;
 * - its report says failed, or it has no report and its execution no longer runs (it failed
 *   before reporting, timed out, or its process was killed): the job is claimed for the next run;
 * - otherwise: a duplicate of a job in progress.
 *
 * @example
 * const decision = await claimJob(store, liveness, { jobId, executionId, source, now: new Date() });
 * if (!decision.claimed) return decision; // { jobId, duplicate: { reason, executionId, run } }
 */
export async function claimJob(
  store: ObjectStore,
  liveness: ExecutionLiveness,
  request: ClaimRequest,
): Promise<ClaimDecision> {
  const latest = await latestClaim(store, request.jobId);
  if (latest?.executionId === request.executionId) return { claimed: true, run: latest.run };
  if (latest) {
    const report = await reportOf(store, latest);
    if (report?.outcome === "succeeded") return duplicateOf(latest, "completed");
    if (!report && (await liveness.isRunning(latest.executionId))) return duplicateOf(latest, "in-progress");
  }
  const run = (latest?.run ?? 0) + 1;
  const claim: JobClaim = {
    jobId: request.jobId,
    run,
    executionId: request.executionId,
    claimedAt: request.now.toISOString(),
    source: request.source,
  };
  const created = await store.putIfAbsent(keys.claim(request.jobId, run), JSON.stringify(claim), {
    contentType: "application/json",
  });
  if (created) return { claimed: true, run };
  // Another delivery claimed this run between our read and our write: it runs the job.
  const winner = await readClaim(store, keys.claim(request.jobId, run));
  return duplicateOf(winner, "in-progress");
}

async function latestClaim(store: ObjectStore, jobId: string): Promise<JobClaim | undefined> {
  const claimKeys = await store.list(keys.claimPrefix(jobId));
  const last = claimKeys.at(-1);
  return last === undefined ? undefined : readClaim(store, last);
}

function readClaim(store: ObjectStore, key: string): Promise<JobClaim> {
  return readJson(store, key, JobClaim);
}

/** The job report, if the claim's execution wrote it (a report of an earlier run does not count). */
async function reportOf(store: ObjectStore, claim: JobClaim): Promise<JobReport | undefined> {
  const report = await readJson(store, keys.report(claim.jobId), JobReport).catch((error: unknown) => {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  });
  return report?.execution.id === claim.executionId ? report : undefined;
}

function duplicateOf(claim: JobClaim, reason: DuplicateDelivery["duplicate"]["reason"]): ClaimDecision {
  return {
    claimed: false,
    jobId: claim.jobId,
    duplicate: { reason, executionId: claim.executionId, run: claim.run },
  };
}
