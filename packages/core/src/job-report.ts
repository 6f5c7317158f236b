import { z } from "zod";
import { RecordedError } from "./activity-record";
import { ArtifactRef, SourceRef } from "./artifact";
import { Timing } from "./timing";
import { FactReview } from "./voicemail-record";

/** How a job ended. */
export const JobOutcome = z.enum(["succeeded", "failed"]);
export type JobOutcome = z.infer<typeof JobOutcome>;

/**
 * The source of a job as the report names it: the {@link SourceRef}'s identity (bucket, key,
 * version, etag), which the triggering event already gives; hash and size are known once Ingest
 * has read it, so a failure before that reports without them.
 */
export const ReportSource = SourceRef.pick({ bucket: true, key: true, versionId: true, etag: true }).extend({
  uri: z.string().optional(),
  sha256: z.string().optional(),
  bytes: z.number().optional(),
  audioMs: z.number().optional(),
});
export type ReportSource = z.infer<typeof ReportSource>;

/**
 * The content of `reports/<jobId>.json`: source, artifacts, outcome, timings per stage, and the
 * facts held for review.
 */
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
  /**
   * The facts the reasoner held for review: the record needs an operator's look. Each names the
   * fact's kind, its confidence and why, never its value (that is in the record). Absent when none is.
   */
  review: z.array(FactReview).optional(),
  /**
   * The call's language (`es-US`), where the stage names the languages it takes: the one Ingest
   * found, or the one the transcription identified. Absent otherwise (every call English).
   */
  language: z.string().optional(),
  writtenAt: z.string(),
});
export type JobReport = z.infer<typeof JobReport>;
