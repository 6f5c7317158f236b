import { EventClock } from "@voxtrail/core";
import type { StageDependencies } from "../dependencies";
import { stageScope, withActivity } from "../lineage/activity";
import { enforceBoundaries } from "../lineage/boundary-check";
import { reportWriter, writeReportAndAnnounce } from "../reporting";
import type { FinalizeInput, FinalizeOutput } from "../state";

/** Finalize: writes the job report (source, artifacts, per-stage timings) and announces success. */
export async function finalize(deps: StageDependencies, job: FinalizeInput): Promise<FinalizeOutput> {
  const clock = new EventClock();
  clock.mark("handler.start");
  deps.logger.appendKeys({ jobId: job.jobId });
  const artifacts = [
    job.source,
    job.normalizedAudio,
    job.transcribe.transcript,
    job.reason.record,
    job.reason.replyText,
    job.synthesize.replyAudio,
  ];
  return withActivity(
    { ...stageScope(deps, job.jobId, "Finalize"), inputs: artifacts, endsJob: true },
    async (activity) => {
      // Finalize handles pointers only: no data flows, and the decision says so.
      enforceBoundaries(deps, activity, "Finalize", []);
      activity.processors.push(reportWriter(deps));
      const report = await writeReportAndAnnounce(deps, {
        jobId: job.jobId,
        outcome: "succeeded",
        source: { ...job.source, audioMs: job.audioMs },
        eventTime: job.eventTime,
        execution: job.execution,
        artifacts,
        stages: [
          { stage: "Ingest", timings: job.timings },
          { stage: "Transcribe", timings: job.transcribe.timings },
          { stage: "Reason", timings: job.reason.timings },
          { stage: "Synthesize", timings: job.synthesize.timings },
        ],
      });
      activity.outputs.push(report);
      clock.mark("report.announced");
      activity.timings.push(clock.timing("finalize.duration", "handler.start", "report.announced"));
      return { jobId: job.jobId, outcome: "succeeded", report };
    },
  );
}
