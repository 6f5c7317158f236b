import { z } from "zod";
import { ArtifactRef } from "./artifact";
import { Boundary, Processor } from "./boundary";
import { Timing } from "./timing";

/** A named error as recorded: name and safe message, never a stack or caller data. */
export const RecordedError = z.object({ name: z.string(), message: z.string() });
export type RecordedError = z.infer<typeof RecordedError>;

/**
 * One stage attempt (DESIGN.md, principle 3): what it read, what it wrote, what processed the data
 * and where, how long it took, and how it ended. Written once, never changed.
 */
export const ActivityRecord = z.object({
  schemaVersion: z.literal(1),
  activityId: z.string(),
  jobId: z.string(),
  stage: z.string(),
  attempt: z.number().int().positive(),
  startedAt: z.string(),
  endedAt: z.string(),
  outcome: z.enum(["succeeded", "failed"]),
  /** Where the stage's own code ran (Lambda in the account, or this machine). */
  compute: Boundary,
  inputs: z.array(ArtifactRef),
  outputs: z.array(ArtifactRef),
  processors: z.array(Processor),
  timings: z.array(Timing),
  error: RecordedError.optional(),
});
export type ActivityRecord = z.infer<typeof ActivityRecord>;
