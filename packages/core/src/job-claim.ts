import * as z from "zod/mini";

/**
 * The content of `claims/<jobId>/run-NN.json`: which execution runs the job's NN-th run (a
 * voicemail job, or a prompt job). Written once with a conditional create before any work, so two
 * deliveries of one upload cannot both run it. Pointers and ids only.
 */
export const JobClaim = z.object({
  jobId: z.string(),
  run: z.number().check(z.int(), z.positive()),
  executionId: z.string(),
  claimedAt: z.string(),
  source: z.object({
    bucket: z.string(),
    key: z.string(),
    versionId: z.optional(z.string()),
    etag: z.optional(z.string()),
  }),
});
export type JobClaim = z.infer<typeof JobClaim>;

/** Why a delivery was not run: the job is already done, or another execution is running it. */
export const DuplicateReason = z.enum(["completed", "in-progress"]);
export type DuplicateReason = z.infer<typeof DuplicateReason>;

/** What a job's first stage (Ingest, PreparePrompts) returns for a delivery of a job that another execution owns. */
export const DuplicateDelivery = z.object({
  jobId: z.string(),
  duplicate: z.object({ reason: DuplicateReason, executionId: z.string(), run: z.number().check(z.int()) }),
});
export type DuplicateDelivery = z.infer<typeof DuplicateDelivery>;

/** Whether an execution is still running: Step Functions in AWS, the runner's own table locally. */
export interface ExecutionLiveness {
  isRunning(executionId: string): Promise<boolean>;
}
