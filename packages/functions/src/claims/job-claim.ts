import {
  type DuplicateDelivery,
  type ExecutionLiveness,
  JobClaim,
  type JobOutcome,
  JobReport,
  ObjectNotFound,
  type ObjectStore,
  PromptsReport,
  readJson,
} from "@voxtrail/core";
import { keys, promptKeys } from "@voxtrail/workflow";
import type * as z from "zod/mini";

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
 * How a claimed run ended, as the job's report tells it: `succeeded` or `failed` when the report
 * answers for that run, `undefined` when it does not (no report yet, or one that may be an
 * earlier run's). Then the run's execution is asked whether it still runs.
 */
export type RunEnding = (store: ObjectStore, claim: JobClaim) => Promise<JobOutcome | undefined>;

/** A voicemail run's ending: the outcome of `reports/<jobId>.json` when the run's own execution wrote it. */
export const voicemailRunEnding: RunEnding = async (store, claim) => {
  const report = await readIfPresent(store, keys.report(claim.jobId), JobReport);
  return report?.execution.id === claim.executionId ? report.outcome : undefined;
};

/**
 * A prompt job's ending: `succeeded` once `prompts/<jobId>/report.json` says every prompt
 * succeeded (whichever run wrote it, the job is done). The report does not name its execution, so
 * one with failed or unrun prompts does not answer for the latest run.
 */
export const promptsRunEnding: RunEnding = async (store, claim) => {
  const report = await readIfPresent(store, promptKeys.report(claim.jobId), PromptsReport);
  return report?.totals.failed === 0 && report.totals.notRun === 0 ? "succeeded" : undefined;
};

/**
 * Claims a job for an execution before any work, by creating `claims/<jobId>/run-NN.json` only
 * if absent (S3 `If-None-Match: *`; the directory store's `link`). Of two deliveries of one
 * upload exactly one runs the job. The latest run decides what a delivery is:
 * - claimed by this execution: a retry of this execution's own first stage, which goes on;
 * - `ending` says it succeeded: a duplicate of a completed job;
 * - `ending` says it failed, or it says nothing and the run's execution no longer runs (it failed
 *   before reporting, timed out, or its process was killed): the job is claimed for the next run;
 * - otherwise: a duplicate of a job in progress.
 *
 * Voicemail jobs (Ingest) pass {@link voicemailRunEnding}, prompt jobs (PreparePrompts)
 * {@link promptsRunEnding}.
 *
 * @example
 * const decision = await claimJob(store, liveness, voicemailRunEnding, { jobId, executionId, source, now: new Date() });
 * if (!decision.claimed) return decision; // { jobId, duplicate: { reason, executionId, run } }
 */
export async function claimJob(
  store: ObjectStore,
  liveness: ExecutionLiveness,
  ending: RunEnding,
  request: ClaimRequest,
): Promise<ClaimDecision> {
  const latest = await latestClaim(store, request.jobId);
  if (latest?.executionId === request.executionId) return { claimed: true, run: latest.run };
  if (latest) {
    const outcome = await ending(store, latest);
    if (outcome === "succeeded") return duplicateOf(latest, "completed");
    if (!outcome && (await liveness.isRunning(latest.executionId))) return duplicateOf(latest, "in-progress");
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

/** The report under `key`, or `undefined` while there is none. */
async function readIfPresent<S extends z.ZodMiniType>(
  store: ObjectStore,
  key: string,
  schema: S,
): Promise<z.infer<S> | undefined> {
  try {
    return await readJson(store, key, schema);
  } catch (error) {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  }
}

function duplicateOf(claim: JobClaim, reason: DuplicateDelivery["duplicate"]["reason"]): ClaimDecision {
  return {
    claimed: false,
    jobId: claim.jobId,
    duplicate: { reason, executionId: claim.executionId, run: claim.run },
  };
}
