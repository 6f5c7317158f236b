import * as z from "zod/mini";
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
export const ReportSource = z.extend(
  z.pick(SourceRef, { bucket: true, key: true, versionId: true, etag: true }),
  {
    uri: z.optional(z.string()),
    sha256: z.optional(z.string()),
    bytes: z.optional(z.number()),
    audioMs: z.optional(z.number()),
  },
);
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
  failure: z.optional(z.object({ stage: z.string(), error: RecordedError })),
  /**
   * The facts the reasoner held for review: the record needs an operator's look. Each names the
   * fact's kind, its confidence and why, never its value (that is in the record). Absent when none is.
   */
  review: z.optional(z.array(FactReview)),
  /**
   * The call's language (`es-US`), where the stage names the languages it takes: the one Ingest
   * found, or the one the transcription identified. Absent otherwise (every call English).
   */
  language: z.optional(z.string()),
  writtenAt: z.string(),
});
export type JobReport = z.infer<typeof JobReport>;
