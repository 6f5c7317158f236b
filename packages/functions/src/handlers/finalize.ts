import { STAGE_DURATION_METRICS } from "@voxtrail/workflow";
import { reportLanguage } from "../call-language";
import { defineStage, type StageNeeds } from "../kernel/stage-definition";
import { reportWriter, writeReportAndAnnounce } from "../reporting";
import { FinalizeInput, type FinalizeOutput } from "../state";

/**
 * Finalize: writes the job report (source, artifacts, per-stage timings, the facts held for
 * review) and announces success.
 */
export const finalizeStage = defineStage<StageNeeds<"events">>()({
  name: "Finalize",
  follows: ["Synthesize"],
  input: FinalizeInput,
  endsJob: true,
  // Finalize handles pointers only: no data flows, and the decision says so.
  flows: () => [],
  open: (job) => ({
    jobId: job.jobId,
    inputs: [
      job.source,
      job.normalizedAudio,
      job.transcribe.transcript,
      job.reason.record,
      job.reason.replyText,
      job.synthesize.replyAudio,
    ],
    carry: undefined,
  }),
  run: async (job, { deps, activity, clock }): Promise<FinalizeOutput> => {
    activity.processors.push(reportWriter(deps));
    const report = await writeReportAndAnnounce(deps, {
      jobId: job.jobId,
      outcome: "succeeded",
      source: { ...job.source, audioMs: job.audioMs },
      eventTime: job.eventTime,
      execution: job.execution,
      artifacts: [...activity.inputs],
      stages: [
        { stage: "Ingest", timings: job.timings },
        { stage: "Transcribe", timings: job.transcribe.timings },
        { stage: "Reason", timings: job.reason.timings },
        { stage: "Synthesize", timings: job.synthesize.timings },
      ],
      ...(job.reason.review ? { review: job.reason.review } : {}),
      ...reportLanguage(job),
    });
    activity.outputs.push(report);
    clock.mark("report.announced");
    activity.timings.push(clock.timing(STAGE_DURATION_METRICS.Finalize, "handler.start", "report.announced"));
    return { jobId: job.jobId, outcome: "succeeded", report };
  },
});
