import {
  type ArtifactRef,
  type JobReport,
  OUTCOME_DETAIL_TYPES,
  type OutcomeDetail,
  type Processor,
  round,
  type Timing,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { putJsonArtifact } from "./artifacts";
import type { StageDependencies } from "./dependencies";

/** The report writer is our own code, running where the handler runs. */
export function reportWriter(deps: Pick<StageDependencies, "compute">): Processor {
  return { provider: "voxtrail", model: "report-writer", version: "1", boundary: deps.compute };
}

/** A report before it is written: `writtenAt`, `schemaVersion` and `job.endToEnd` are added on write. */
export type ReportDraft = Omit<JobReport, "schemaVersion" | "writtenAt" | "timings">;

/**
 * Writes `reports/<jobId>.json` and announces the outcome on the event bus (pointers only).
 * `job.endToEnd` runs from the S3 event time to the moment every artifact was durable, which is
 * when this is called: wall clock, since two systems' clocks meet here.
 */
export async function writeReportAndAnnounce(
  deps: Pick<StageDependencies, "store" | "events" | "now">,
  draft: ReportDraft,
): Promise<ArtifactRef> {
  const now = (deps.now ?? (() => new Date()))();
  const endToEnd: Timing = {
    name: "job.endToEnd",
    startEvent: "s3.eventTime",
    endEvent: "artifacts.durable",
    ms: round(Math.max(0, now.getTime() - Date.parse(draft.eventTime))),
  };
  const report: JobReport = { schemaVersion: 1, ...draft, timings: [endToEnd], writtenAt: now.toISOString() };
  const ref = await putJsonArtifact(deps.store, "report", keys.report(draft.jobId), report);
  const detail: OutcomeDetail = {
    jobId: draft.jobId,
    outcome: draft.outcome,
    report: { uri: ref.uri, sha256: ref.sha256 },
    ...(draft.failure ? { failedStage: draft.failure.stage, errorName: draft.failure.error.name } : {}),
  };
  await deps.events.publish(OUTCOME_DETAIL_TYPES[draft.outcome], detail);
  return ref;
}
