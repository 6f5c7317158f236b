import type { StoredObject } from "@voxtrail/core";
import type { PromptsProgress } from "@voxtrail/local";
import { PROMPTS_WORKFLOW } from "@voxtrail/workflow";
import { PromptsWatcher } from "./prompts-watcher";
import type { WorkflowJobs } from "./workflow-jobs";

/**
 * The prompts workflow's part in following a job on a stage. The job id is PreparePrompts': from
 * the manifest's bucket, key and ETag or version id. A report already there before the upload (the
 * same manifest run before) counts only once it has been rewritten or the executions have all
 * succeeded; executions that end without a report failed the job. While the job runs, `onProgress`
 * is told the rows' counts once PreparePrompts has written them, then each prompt's outcome.
 *
 * @example
 * const [result] = await followStageJobs([upload], promptsJobs((event) => progress.update(event)), { sfn, store, finder, timeoutMs: 900_000 });
 */
export function promptsJobs(
  onProgress?: (progress: PromptsProgress) => void,
): WorkflowJobs<typeof PROMPTS_WORKFLOW> {
  return {
    workflow: PROMPTS_WORKFLOW,
    words: { upload: "manifest", rule: "stage's prompts rule", report: "prompts report" },
    duplicateDeliveries: true,
    ending: (report) => ({ status: "SUCCEEDED", report }),
    watch: async (source, store) => {
      const jobId = PROMPTS_WORKFLOW.jobIdFor(source);
      const earlier = await store.head(PROMPTS_WORKFLOW.reportKey(jobId));
      const watcher = new PromptsWatcher(store, jobId, onProgress);
      return {
        jobId: () => jobId,
        // An earlier run's report is this run's too when the executions succeeded without rewriting it.
        counts: async (key, statuses) => {
          const current = await store.head(key);
          if (current === undefined) return false;
          return !sameVersion(current, earlier) || statuses.every(({ status }) => status === "SUCCEEDED");
        },
        unfinished: () => watcher.look(),
      };
    },
  };
}

/** Whether two heads of one key are the same write (version id in a versioned bucket, else ETag). */
function sameVersion(current: StoredObject, earlier: StoredObject | undefined): boolean {
  if (!earlier) return false;
  if (current.versionId !== undefined || earlier.versionId !== undefined) {
    return current.versionId === earlier.versionId;
  }
  return current.etag === earlier.etag;
}
