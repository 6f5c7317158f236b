import * as z from "zod/mini";
import { ActivityRecord } from "./activity-record";

/**
 * A compact copy of one job's lineage, written when the job ends (by Finalize or the failure
 * recorder, after their own activity record) so the auditor's whole-store queries read one object
 * per job instead of every record. The activity records stay the source of truth: a query uses a
 * summary only when it names exactly the records the store holds for the job, and `verify` checks
 * every summary against the records it copies and their hashes.
 */
export const LineageSummary = z.object({
  schemaVersion: z.literal(1),
  jobId: z.string(),
  writtenAt: z.string(),
  /**
   * Every activity record of the job when the summary was written, in key order, with the sha256
   * of its bytes as stored: the job's digest, which a signed lineage digest covers in turn.
   */
  records: z.array(z.object({ key: z.string(), sha256: z.optional(z.string()), record: ActivityRecord })),
});
export type LineageSummary = z.infer<typeof LineageSummary>;
