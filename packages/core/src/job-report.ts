import { z } from "zod";
import { RecordedError } from "./activity-record";
import { ArtifactRef } from "./artifact";
import { Timing } from "./timing";

/** How a job ended. */
export const JobOutcome = z.enum(["succeeded", "failed"]);
export type JobOutcome = z.infer<typeof JobOutcome>;

/** The source of a job as the report names it; hash and size are known once Ingest has read it. */
export const ReportSource = z.object({
  bucket: z.string(),
  key: z.string(),
  versionId: z.string().optional(),
  etag: z.string().optional(),
  uri: z.string().optional(),
  sha256: z.string().optional(),
  bytes: z.number().optional(),
  audioMs: z.number().optional(),
});
export type ReportSource = z.infer<typeof ReportSource>;

/** The content of `reports/<jobId>.json`: source, artifacts, outcome, and timings per stage. */
export const JobReport = z.object({
  schemaVersion: z.literal(1),
  jobId: z.string(),
  outcome: JobOutcome,
  source: ReportSource,
  eventTime: z.string(),
  execution: z.object({ id: z.string(), startTime: z.string() }),
  artifacts: z.array(ArtifactRef),
  stages: z.array(z.object({ stage: z.string(), timings: z.array(Timing) })),
  /** Job-level timings: `ingest.queueDelay` and `job.endToEnd`. */
  timings: z.array(Timing),
  failure: z.object({ stage: z.string(), error: RecordedError }).optional(),
  writtenAt: z.string(),
});
export type JobReport = z.infer<typeof JobReport>;
