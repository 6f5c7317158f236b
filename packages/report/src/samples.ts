import { type TimingSample, timingSamples } from "@voxtrail/core";
import type { JobData } from "./job-data";

/** The stage name job-level samples (`job.endToEnd`) are filed under. */
export const JOB_STAGE = "Job";

/**
 * The raw samples of one job: every timing of every succeeded stage attempt, with its conditions,
 * and the report's `job.endToEnd` (for a succeeded job) under the stage {@link JOB_STAGE}, carrying
 * the source's size and the jobs in flight when Ingest began.
 */
export function jobSamples(job: JobData): TimingSample[] {
  const samples = job.records
    .filter((record) => record.outcome === "succeeded")
    .flatMap((record) => timingSamples(record));
  const report = job.report;
  if (report?.outcome !== "succeeded") return samples;
  const ingest = job.records.find((record) => record.stage === "Ingest")?.conditions;
  for (const timing of report.timings) {
    samples.push({
      ...timing,
      jobId: job.jobId,
      stage: JOB_STAGE,
      attempt: 1,
      provider: "voxtrail",
      model: "voicemail-workflow",
      version: String(report.schemaVersion),
      payloadBytes: report.source.bytes ?? 0,
      ...(ingest?.jobsInFlight === undefined ? {} : { jobsInFlight: ingest.jobsInFlight }),
      ...(report.source.audioMs === undefined ? {} : { audioMs: report.source.audioMs }),
    });
  }
  return samples;
}
