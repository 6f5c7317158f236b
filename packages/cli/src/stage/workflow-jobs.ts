import type { ObjectStore, readJson } from "@voxtrail/core";
import type { JobWorkflow, SourceIdentity } from "@voxtrail/workflow";
import type { EventExecution } from "./execution-finder";
import type { ExecutionState } from "./execution-statuses";

/** The report of workflow `W`: what `readJson` reads with its schema. */
export type ReportOf<W extends JobWorkflow<string>> = Awaited<ReturnType<typeof readJson<W["report"]>>>;

/** How a job ended: succeeded or failed, with the Fail state's error or the job's report. */
export interface JobEnding<R> {
  status: "SUCCEEDED" | "FAILED";
  error?: { error: string; cause: string };
  report?: R;
}

/** What the follower asks about one upload's job, as its workflow answers it. */
export interface JobWatch {
  /** The job's id, from its executions (none yet at a time-out) or its upload. */
  jobId(executions: EventExecution[]): string;
  /** Whether the report now under `key` is this run's; without it, any report there is. */
  counts?(key: string, statuses: ExecutionState[]): Promise<boolean>;
  /** Told after each look that found the job started but unfinished. */
  unfinished?(): Promise<void>;
}

/**
 * What differs between workflows in following their jobs on a stage: the one follower,
 * `followStageJobs`, is written over this and the workflow's descriptor.
 */
export interface WorkflowJobs<W extends JobWorkflow<string>> {
  /** The workflow's descriptor: where its reports land and their schema. */
  readonly workflow: W;
  /** How a result's cause names the upload, the rule that starts the workflow, and its report. */
  readonly words: { upload: string; rule: string; report: string };
  /**
   * Whether executions that all succeeded without a report are duplicate deliveries (they end at
   * once, writing nothing, while the execution that owns the job is not listed yet): then the
   * follower keeps looking; otherwise the job failed.
   */
  readonly duplicateDeliveries: boolean;
  /** Status and error as the report tells them. */
  ending(report: ReportOf<W>): JobEnding<ReportOf<W>>;
  /** Starts watching one upload's job, before the first look at it. */
  watch(source: SourceIdentity, store: ObjectStore): Promise<JobWatch>;
}
