import { setTimeout as sleep } from "node:timers/promises";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { type ObjectStore, PromptResult, PromptsReport, type StoredObject } from "@voxtrail/core";
import type { PromptsJobResult, PromptsProgress } from "@voxtrail/local";
import { promptKeys, promptsJobIdFor, type SourceIdentity } from "@voxtrail/workflow";
import type { ExecutionFinder } from "./execution-finder";
import { isRunning, type StageJobResult, statusesOf } from "./stage-jobs";

/** How a prompts job ended on a deployed stage, with the executions that ran it. */
export interface PromptsStageResult extends PromptsJobResult {
  executions: StageJobResult["executions"];
}

/** How to follow the job. */
export interface FollowPromptsOptions {
  sfn: SFNClient;
  /** The stage's bucket, where the job's rows, results and report appear. */
  store: ObjectStore;
  /** A finder on the stage's prompts state machine. */
  finder: ExecutionFinder;
  /** Give up when the job is still unfinished after this long. */
  timeoutMs: number;
  /** Pause between two looks at the executions and the job's objects. */
  pollIntervalMs: number;
  /** Told the rows' count once PreparePrompts has written them, then each prompt's outcome. */
  onProgress?: (progress: PromptsProgress) => void;
}

/**
 * Follows an uploaded prompts manifest to its job's end on a deployed stage: finds the execution
 * EventBridge started for the upload, then waits for `prompts/<jobId>/report.json`, which
 * WritePromptsReport writes as the job's last step (the job id is PreparePrompts': from the
 * manifest's bucket, key and ETag or version id). A report already there before the upload (the
 * same manifest run before) counts only once it has been rewritten or the executions have all
 * succeeded.
 * A job whose executions all ended without a report failed with the first unsuccessful terminal
 * status (FAILED, TIMED_OUT, ABORTED); one unfinished at the timeout failed with `TimedOut`.
 *
 * @example
 * const result = await followPromptsJob({ bucket, key, versionId, etag }, { sfn, store, finder, timeoutMs: 900_000, pollIntervalMs: 1000 });
 * result.report?.totals;
 */
export async function followPromptsJob(
  source: SourceIdentity,
  options: FollowPromptsOptions,
): Promise<PromptsStageResult> {
  const jobId = promptsJobIdFor(source);
  const reportKey = promptKeys.report(jobId);
  const earlier = await options.store.head(reportKey);
  const progress = new ProgressWatcher(options.store, jobId, options.onProgress);
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    await options.finder.refresh();
    const executions = options.finder.executionsFor(source);
    if (executions.length > 0) {
      // Statuses first, then the report: a report missing after its execution ended is never coming.
      const statuses = await statusesOf(executions, options.sfn);
      const base = { key: source.key, jobId, executions: statuses };
      const current = await options.store.head(reportKey);
      const running = statuses.some(isRunning);
      const unsuccessful = statuses.find(({ status }) => !isRunning({ status }) && status !== "SUCCEEDED");
      const fresh = current !== undefined && !sameVersion(current, earlier);
      // An earlier run's report is this run's too when the executions succeeded without rewriting it.
      if (fresh || (current && !running && !unsuccessful)) {
        return { ...base, status: "SUCCEEDED", report: await readReport(options.store, reportKey) };
      }
      if (!running) {
        const ended = unsuccessful ?? (statuses[0] as Status);
        return {
          ...base,
          status: "FAILED",
          error: {
            error: ended.status,
            cause: `the execution ended ${ended.status} without a prompts report`,
          },
        };
      }
      await progress.look();
    }
    if (performance.now() >= deadline) {
      const seconds = Math.round(options.timeoutMs / 1000);
      return {
        key: source.key,
        jobId,
        status: "FAILED",
        error: {
          error: "TimedOut",
          cause:
            executions.length === 0
              ? `no execution started for this manifest within ${seconds} s (is the stage's prompts rule enabled?)`
              : `no prompts report within ${seconds} s; the execution is still running`,
        },
        executions: await statusesOf(executions, options.sfn),
      };
    }
    await sleep(options.pollIntervalMs);
  }
}

type Status = StageJobResult["executions"][number];

/** Whether two heads of one key are the same write (version id in a versioned bucket, else ETag). */
function sameVersion(current: StoredObject, earlier: StoredObject | undefined): boolean {
  if (!earlier) return false;
  if (current.versionId !== undefined || earlier.versionId !== undefined) {
    return current.versionId === earlier.versionId;
  }
  return current.etag === earlier.etag;
}

async function readReport(store: ObjectStore, key: string): Promise<PromptsReport> {
  return PromptsReport.parse(JSON.parse((await store.getBytes(key)).toString("utf8")));
}

/**
 * Turns the job's objects into progress events: the valid and bad rows' counts once PreparePrompts
 * has written them, then one event per result object as SynthesizePrompt or RecordPromptFailure
 * writes it (each read once).
 */
class ProgressWatcher {
  #prepared = false;
  readonly #seen = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly jobId: string,
    private readonly onProgress: ((progress: PromptsProgress) => void) | undefined,
  ) {}

  async look(): Promise<void> {
    if (!this.onProgress) return;
    if (!this.#prepared) {
      const [rows, bad] = await Promise.all([
        this.store.head(promptKeys.rows(this.jobId)),
        this.store.head(promptKeys.badRows(this.jobId)),
      ]);
      if (!rows || !bad) return;
      const rowCount = countLines(await this.store.getBytes(rows.key));
      const badRows: unknown = JSON.parse((await this.store.getBytes(bad.key)).toString("utf8"));
      this.#prepared = true;
      this.onProgress({
        type: "prepared",
        jobId: this.jobId,
        rows: rowCount,
        badRows: Array.isArray(badRows) ? badRows.length : 0,
      });
    }
    for (const key of await this.store.list(promptKeys.resultsPrefix(this.jobId))) {
      if (this.#seen.has(key)) continue;
      this.#seen.add(key);
      const result = PromptResult.parse(JSON.parse((await this.store.getBytes(key)).toString("utf8")));
      this.onProgress({ type: "prompt", outcome: { id: result.id, status: result.status } });
    }
  }
}

function countLines(bytes: Buffer): number {
  let lines = 0;
  for (const byte of bytes) if (byte === 0x0a) lines += 1;
  return lines;
}
