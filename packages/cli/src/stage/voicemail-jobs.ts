import type { JobReport } from "@voxtrail/core";
import { failState, VOICEMAIL_WORKFLOW, type VoicemailStage } from "@voxtrail/workflow";
import type { JobEnding, WorkflowJobs } from "./workflow-jobs";

/**
 * The voicemail workflow's part in following jobs on a stage: the job id is Ingest's, from the
 * execution's input event; any report under the job's key is the job's, and its outcome is worded
 * as the state machine's Fail state words it; executions that succeeded without a report are
 * duplicate deliveries.
 *
 * @example
 * const results = await followStageJobs(uploads, VOICEMAIL_JOBS, { sfn, store, finder, timeoutMs: 900_000 });
 */
export const VOICEMAIL_JOBS: WorkflowJobs<typeof VOICEMAIL_WORKFLOW> = {
  workflow: VOICEMAIL_WORKFLOW,
  words: { upload: "upload", rule: "stage's rule", report: "job report" },
  duplicateDeliveries: true,
  ending: fromReport,
  watch: async (source) => ({
    jobId: (executions) => VOICEMAIL_WORKFLOW.jobIdFor(executions[0]?.source ?? source),
  }),
};

/** Status and error as the report tells them, worded as the state machine's Fail state words them. */
function fromReport(report: JobReport): JobEnding<JobReport> {
  if (report.outcome === "succeeded") return { status: "SUCCEEDED", report };
  const failure = report.failure;
  return {
    status: "FAILED",
    error: failure
      ? {
          error: failState(failure.stage as VoicemailStage),
          cause: `${failure.error.name}: ${failure.error.message}`,
        }
      : { error: "JobFailed", cause: "the job report names no failed stage" },
    report,
  };
}
