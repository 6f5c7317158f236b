import { setTimeout as sleep } from "node:timers/promises";
import { DescribeExecutionCommand, type ExecutionStatus, type SFNClient } from "@aws-sdk/client-sfn";
import { JobReport, ObjectNotFound, type ObjectStore } from "@voxtrail/core";
import type { InputFile, JobProgress, JobResult } from "@voxtrail/local";
import { failState, jobIdFor, keys, type SourceIdentity, type VoicemailStage } from "@voxtrail/workflow";
import type { EventExecution, ExecutionFinder } from "./execution-finder";

/** A voicemail uploaded to the stage's bucket, waiting for its job. */
export interface StageUpload {
  file: InputFile;
  /** Bucket, key, and the version id and ETag S3 answered the upload with. */
  source: SourceIdentity;
}

/** How one uploaded file's job ended on the stage, with the executions that ran it. */
export interface StageJobResult extends JobResult {
  executions: Array<{ executionArn: string; status: ExecutionStatus | "UNKNOWN" }>;
}

/** How to follow the jobs. */
export interface FollowOptions {
  sfn: SFNClient;
  /** The stage's bucket, where the jobs' reports appear. */
  store: ObjectStore;
  finder: ExecutionFinder;
  /** Give up on the jobs still unfinished after this long. */
  timeoutMs: number;
  /** Pause between two looks at the executions and reports. */
  pollIntervalMs: number;
  onProgress?: (progress: JobProgress) => void;
}

/**
 * Follows uploaded voicemails to their jobs' ends on a deployed stage: finds the execution
 * EventBridge started for each upload, then waits for the job report, which Finalize or the
 * failure recorder writes as the job's last durable step. The outcome is the report's; a job whose
 * executions all ended without a report failed with the first unsuccessful terminal status
 * (FAILED, TIMED_OUT, ABORTED); a job unfinished at the timeout failed with `TimedOut`. Resolves with one
 * result per upload, in order.
 *
 * @example
 * const results = await followStageJobs(uploads, { sfn, store, finder, timeoutMs: 900_000, pollIntervalMs: 1000 });
 */
export async function followStageJobs(
  uploads: StageUpload[],
  options: FollowOptions,
): Promise<StageJobResult[]> {
  const results: StageJobResult[] = new Array(uploads.length);
  const pending = new Set(uploads.keys());
  const announced = new Set<number>();
  const deadline = performance.now() + options.timeoutMs;
  while (pending.size > 0) {
    await options.finder.refresh();
    for (const index of pending) {
      const upload = uploads[index] as StageUpload;
      const executions = options.finder.executionsFor(upload.source);
      if (executions.length === 0) continue;
      if (!announced.has(index)) {
        announced.add(index);
        options.onProgress?.({
          type: "stage",
          file: upload.file,
          transition: { type: "entered", state: "RUNNING", timestamp: Date.now() },
        });
      }
      const result = await outcomeOf(upload, executions, options);
      if (result) finish(index, result);
    }
    if (pending.size === 0) break;
    if (performance.now() >= deadline) {
      for (const index of pending) finish(index, await timedOut(uploads[index] as StageUpload, options));
      break;
    }
    await sleep(options.pollIntervalMs);
  }
  return results;

  function finish(index: number, result: StageJobResult): void {
    results[index] = result;
    pending.delete(index);
    options.onProgress?.({ type: "finished", result });
  }
}

/** The job's result once it has ended, or `undefined` while it runs. */
async function outcomeOf(
  upload: StageUpload,
  executions: EventExecution[],
  options: FollowOptions,
): Promise<StageJobResult | undefined> {
  const jobId = jobIdFor((executions[0] as EventExecution).source);
  // Statuses first, then the report: a report missing after its execution ended is never coming.
  const statuses = await statusesOf(executions, options.sfn);
  const base = { file: upload.file, key: upload.source.key, jobId, executions: statuses };
  const report = await readReport(options.store, jobId);
  if (report) return { ...base, ...fromReport(report) };
  if (statuses.some(isRunning)) return undefined;
  const ended = statuses.find(({ status }) => status !== "SUCCEEDED");
  // Executions that all succeeded without a report are duplicate deliveries (they end at once,
  // writing nothing): the execution that owns the job is not listed yet, so keep looking.
  if (!ended) return undefined;
  return {
    ...base,
    status: "FAILED",
    error: { error: ended.status, cause: `the execution ended ${ended.status} without a job report` },
  };
}

/** The result of a job still unfinished (or never started) at the timeout. */
async function timedOut(upload: StageUpload, options: FollowOptions): Promise<StageJobResult> {
  const executions = options.finder.executionsFor(upload.source);
  const statuses = await statusesOf(executions, options.sfn);
  const seconds = Math.round(options.timeoutMs / 1000);
  const running = statuses.some(isRunning);
  return {
    file: upload.file,
    key: upload.source.key,
    jobId: jobIdFor(executions[0]?.source ?? upload.source),
    status: "FAILED",
    error: {
      error: "TimedOut",
      cause:
        executions.length === 0
          ? `no execution started for this upload within ${seconds} s (is the stage's rule enabled?)`
          : running
            ? `no job report within ${seconds} s; the execution is still running`
            : `no job report within ${seconds} s; its executions ended as duplicate deliveries`,
    },
    executions: statuses,
  };
}

/** Whether an execution's status says it may still write (running, or waiting to be redriven). */
export function isRunning({ status }: { status: string }): boolean {
  return status === "RUNNING" || status === "PENDING_REDRIVE";
}

/**
 * Each execution's current status (DescribeExecution), in order.
 *
 * @example
 * const statuses = await statusesOf(finder.executionsFor(source), sfn); // [{ executionArn, status: "RUNNING" }]
 */
export async function statusesOf(
  executions: EventExecution[],
  sfn: SFNClient,
): Promise<StageJobResult["executions"]> {
  return Promise.all(
    executions.map(async ({ executionArn }) => {
      const { status } = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      return { executionArn, status: status ?? "UNKNOWN" };
    }),
  );
}

/** Status and error as the report tells them, worded as the state machine's Fail state words them. */
function fromReport(report: JobReport): Pick<JobResult, "status" | "error" | "report"> {
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

async function readReport(store: ObjectStore, jobId: string): Promise<JobReport | undefined> {
  try {
    return JobReport.parse(JSON.parse((await store.getBytes(keys.report(jobId))).toString("utf8")));
  } catch (error) {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  }
}
