import type { DuplicateDelivery } from "@voxtrail/core";
import { type SourceIdentity, sourceIdentityOf } from "@voxtrail/workflow";
import type { StageNeeds } from "../kernel/stage-definition";
import { requireStageBucket } from "../stage-bucket";
import type { IngestInput } from "../state";
import { claimJob, type RunEnding } from "./job-claim";

/** A first stage's job: claimed for this execution's run, or a duplicate delivery already answered. */
export type ClaimedJob =
  | { claimed: true; jobId: string; identity: SourceIdentity; run: number }
  | { claimed: false; jobId: string; done: DuplicateDelivery };

/**
 * How a workflow's first stage opens its job: the upload the event names must be in the stage's
 * own bucket (`requireStageBucket`: `InvalidInput` otherwise, before anything is read), its job
 * id comes from the upload's identity (`jobIdOf`), and the job is claimed for this execution
 * (`claimJob` with the workflow's `ending`). A delivery of an upload whose job another execution
 * owns is logged and answered `{ jobId, duplicate }`, having written nothing.
 *
 * @example
 * const job = await openClaimedJob(input, deps, { jobIdOf: jobIdFor, ending: voicemailRunEnding });
 * if (!job.claimed) return { jobId: job.jobId, done: job.done };
 */
export async function openClaimedJob(
  input: IngestInput,
  deps: StageNeeds<"executions">,
  workflow: { jobIdOf: (identity: SourceIdentity) => string; ending: RunEnding },
): Promise<ClaimedJob> {
  requireStageBucket(input.event, deps.store);
  const identity = sourceIdentityOf(input.event);
  const jobId = workflow.jobIdOf(identity);
  const claim = await claimJob(deps.store, deps.executions, workflow.ending, {
    jobId,
    executionId: input.execution.id,
    source: identity,
    now: deps.now?.() ?? new Date(),
  });
  if (!claim.claimed) {
    deps.logger.info("duplicate delivery: another execution owns this job", { jobId, ...claim.duplicate });
    return { claimed: false, jobId, done: { jobId, duplicate: claim.duplicate } };
  }
  return { claimed: true, jobId, identity, run: claim.run };
}
