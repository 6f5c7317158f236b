import type { JobReport, Timing } from "@voxtrail/core";
import type { JobResult } from "@voxtrail/local";
import { failText } from "./fail-cause";

/** One line per job: outcome, name, job id, and per-stage times (or the failed stage and cause). */
export function jobLine(result: JobResult): string {
  const mark = result.status === "SUCCEEDED" ? "ok  " : result.status === "DUPLICATE" ? "skip" : "FAIL";
  const head = `${mark} ${displayName(result.file.name)}  ${result.jobId}`;
  if (result.status === "NOT_MATCHED") return `${head}  not matched by the workflow's rule`;
  if (result.status === "DUPLICATE")
    return result.duplicate?.reason === "completed"
      ? `${head}  already done (run ${result.duplicate.run}); nothing written`
      : `${head}  running in another execution (run ${result.duplicate?.run}); nothing written`;
  const times = result.report ? stageTimes(result.report) : "";
  if (result.status === "FAILED") {
    const where = result.failedState ? ` (in ${result.failedState})` : "";
    return `${head}  ${failText(result.error)}${where}${times ? `  (${times})` : ""}`;
  }
  return `${head}  ${times}`;
}

/** The line said once when a job is running in another execution and this run waits for it. */
export function waitingLine(name: string, jobId: string, run: number): string {
  return `wait ${displayName(name)}  ${jobId}  running in another execution (run ${run}); waiting for it to end`;
}

/** A file's name as one line can show it: quoted, with escapes, when it holds control characters. */
function displayName(name: string): string {
  return /\p{Cc}/u.test(name) ? JSON.stringify(name) : name;
}

/** The closing summary: counts, wall time, where to look. */
export function summaryLine(results: JobResult[], elapsedMs: number, storeDir: string): string {
  const count = (wanted: (result: JobResult) => boolean) => results.filter(wanted).length;
  const succeeded = count((result) => result.status === "SUCCEEDED");
  const done = count((result) => result.duplicate?.reason === "completed");
  const elsewhere = count((result) => result.duplicate?.reason === "in-progress");
  const failed = results.length - succeeded - done - elsewhere;
  const skipped = [
    ...(done > 0 ? [`${done} already done`] : []),
    ...(elsewhere > 0 ? [`${elsewhere} running elsewhere`] : []),
  ];
  return `${results.length} job(s): ${[`${succeeded} succeeded`, ...skipped, `${failed} failed`].join(", ")} in ${seconds(elapsedMs)}; artifacts, lineage and reports in ${storeDir}`;
}

/** A job counts as done when it succeeded now or in an earlier run. */
export function isDone(result: JobResult): boolean {
  return result.status === "SUCCEEDED" || result.duplicate?.reason === "completed";
}

function stageTimes(report: JobReport): string {
  const parts = report.stages.map(({ stage, timings }) => {
    const duration = find(timings, `${stage.toLowerCase()}.duration`);
    const ttfb = find(timings, "synthesize.ttfb");
    const base = `${stage.toLowerCase()} ${duration === undefined ? "?" : milliseconds(duration)}`;
    return stage === "Synthesize" && ttfb !== undefined ? `${base} (ttfb ${milliseconds(ttfb)})` : base;
  });
  const total = find(report.timings, "job.endToEnd");
  return [...parts, ...(total === undefined ? [] : [`end-to-end ${milliseconds(total)}`])].join(" · ");
}

function find(timings: Timing[], name: string): number | undefined {
  return timings.find((timing) => timing.name === name)?.ms;
}

function milliseconds(ms: number): string {
  return ms >= 1000 ? seconds(ms) : `${Math.round(ms)} ms`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
