import { setTimeout as sleep } from "node:timers/promises";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { mapLimit, ObjectNotFound, type ObjectStore, readJson } from "@voxtrail/core";
import type { JobWorkflow, SourceIdentity } from "@voxtrail/workflow";
import type { EventExecution, ExecutionFinder } from "./execution-finder";
import { type ExecutionState, isRunning, statusesOf } from "./execution-statuses";
import type { JobEnding, JobWatch, ReportOf, WorkflowJobs } from "./workflow-jobs";

/** An object uploaded to the stage's bucket, waiting for its job. */
export interface StageUpload<E extends object> {
  /** Bucket, key, and the version id and ETag S3 answered the upload with. */
  source: SourceIdentity;
  /** What the job's result names the upload by besides its key (a voicemail's file). */
  fields: E;
}

/** How one upload's job ended on the stage, with the executions that ran it. */
export type StageJobResult<E extends object, R> = E & {
  key: string;
  jobId: string;
  executions: ExecutionState[];
} & JobEnding<R>;

/** How to follow the jobs. */
export interface FollowOptions<E extends object, R> {
  sfn: SFNClient;
  /** The stage's bucket, where the jobs' objects and reports appear. */
  store: ObjectStore;
  /** A finder on the workflow's state machine. */
  finder: ExecutionFinder;
  /** Give up on the jobs still unfinished after this long. */
  timeoutMs: number;
  /** Told once per upload when the first execution for it shows up. */
  onStarted?: (upload: StageUpload<E>) => void;
  /** Told each result as its job ends. */
  onFinished?: (result: StageJobResult<E, R>) => void;
}

/** One upload being followed, with what its workflow answers about its job. */
interface Followed<E extends object> {
  upload: StageUpload<E>;
  watch: JobWatch;
}

/** Pause between two looks at the executions and reports. */
const POLL_INTERVAL_MS = 1000;
/** How many jobs are set up for watching at once. */
const WATCH_CONCURRENCY = 8;

/**
 * Follows uploads to their jobs' ends on a deployed stage: finds the execution EventBridge started
 * for each upload, then waits for the job's report, the workflow's last durable write. The outcome
 * is the report's; a job whose executions all ended without a report failed with the first
 * unsuccessful terminal status (FAILED, TIMED_OUT, ABORTED); a job unfinished at the time-out failed
 * with `TimedOut`. What differs per workflow comes from `jobs`. Resolves with one result per upload,
 * in order.
 *
 * @example
 * const results = await followStageJobs(uploads, VOICEMAIL_JOBS, { sfn, store, finder, timeoutMs: 900_000 });
 */
export async function followStageJobs<E extends object, W extends JobWorkflow<string>>(
  uploads: StageUpload<E>[],
  jobs: WorkflowJobs<W>,
  options: FollowOptions<E, ReportOf<W>>,
): Promise<Array<StageJobResult<E, ReportOf<W>>>> {
  const followed = await mapLimit(uploads, WATCH_CONCURRENCY, async (upload) => ({
    upload,
    watch: await jobs.watch(upload.source, options.store),
  }));
  const results: Array<StageJobResult<E, ReportOf<W>>> = new Array(uploads.length);
  const pending = new Set(uploads.keys());
  const started = new Set<number>();
  const deadline = performance.now() + options.timeoutMs;
  while (pending.size > 0) {
    await options.finder.refresh();
    for (const index of pending) {
      const job = followed[index] as Followed<E>;
      const executions = options.finder.executionsFor(job.upload.source);
      if (executions.length === 0) continue;
      if (!started.has(index)) {
        started.add(index);
        options.onStarted?.(job.upload);
      }
      const result = await outcomeOf(job, executions, jobs, options);
      if (result) finish(index, result);
      else await job.watch.unfinished?.();
    }
    if (pending.size === 0) break;
    if (performance.now() >= deadline) {
      for (const index of pending) {
        finish(index, await timedOut(followed[index] as Followed<E>, jobs, options));
      }
      break;
    }
    await sleep(POLL_INTERVAL_MS);
  }
  return results;

  function finish(index: number, result: StageJobResult<E, ReportOf<W>>): void {
    results[index] = result;
    pending.delete(index);
    options.onFinished?.(result);
  }
}

/** The job's result once it has ended, or `undefined` while it runs. */
async function outcomeOf<E extends object, W extends JobWorkflow<string>>(
  { upload, watch }: Followed<E>,
  executions: EventExecution[],
  jobs: WorkflowJobs<W>,
  options: FollowOptions<E, ReportOf<W>>,
): Promise<StageJobResult<E, ReportOf<W>> | undefined> {
  const jobId = watch.jobId(executions);
  // Statuses first, then the report: a report missing after its execution ended is never coming.
  const statuses = await statusesOf(executions, options.sfn);
  const base = { ...upload.fields, key: upload.source.key, jobId, executions: statuses };
  const key = jobs.workflow.reportKey(jobId);
  const counts = watch.counts ? await watch.counts(key, statuses) : true;
  const report = counts ? await reportIn(options.store, key, jobs.workflow) : undefined;
  if (report !== undefined) return { ...base, ...jobs.ending(report) };
  if (statuses.some(isRunning)) return undefined;
  const ended =
    statuses.find(({ status }) => status !== "SUCCEEDED") ??
    (jobs.duplicateDeliveries ? undefined : statuses[0]);
  if (!ended) return undefined;
  const cause = `the execution ended ${ended.status} without a ${jobs.words.report}`;
  return { ...base, status: "FAILED", error: { error: ended.status, cause } };
}

/** The result of a job still unfinished (or never started) at the time-out. */
async function timedOut<E extends object, W extends JobWorkflow<string>>(
  { upload, watch }: Followed<E>,
  jobs: WorkflowJobs<W>,
  options: FollowOptions<E, ReportOf<W>>,
): Promise<StageJobResult<E, ReportOf<W>>> {
  const executions = options.finder.executionsFor(upload.source);
  const statuses = await statusesOf(executions, options.sfn);
  const seconds = Math.round(options.timeoutMs / 1000);
  const { upload: noun, rule, report } = jobs.words;
  // Executions that ended without a report are still followed only when they were duplicate deliveries.
  const duplicates = jobs.duplicateDeliveries && !statuses.some(isRunning);
  return {
    ...upload.fields,
    key: upload.source.key,
    jobId: watch.jobId(executions),
    status: "FAILED",
    error: {
      error: "TimedOut",
      cause:
        executions.length === 0
          ? `no execution started for this ${noun} within ${seconds} s (is the ${rule} enabled?)`
          : duplicates
            ? `no ${report} within ${seconds} s; its executions ended as duplicate deliveries`
            : `no ${report} within ${seconds} s; the execution is still running`,
    },
    executions: statuses,
  };
}

/** The workflow's report under `key`, or `undefined` while there is none. */
async function reportIn<W extends JobWorkflow<string>>(
  store: ObjectStore,
  key: string,
  workflow: W,
): Promise<ReportOf<W> | undefined> {
  try {
    return await readJson<W["report"]>(store, key, workflow.report);
  } catch (error) {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  }
}
