import type { FactReview, JobReport, Timing } from "@voxtrail/core";
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
  const review = result.report?.review ?? [];
  return review.length > 0
    ? `${head}  ${times}  REVIEW ${review.map(({ fact }) => fact).join(", ")}`
    : `${head}  ${times}`;
}

/** The line said once when a job is running in another execution and this run waits for it. */
export function waitingLine(name: string, jobId: string, run: number): string {
  return `wait ${displayName(name)}  ${jobId}  running in another execution (run ${run}); waiting for it to end`;
}

/** A file's name as one line can show it: quoted, with escapes, when it holds control characters. */
function displayName(name: string): string {
  return /\p{Cc}/u.test(name) ? JSON.stringify(name) : name;
}

/**
 * After the closing summary, the jobs whose records need an operator's look: one line per job
 * with each fact held for review and why (kinds and confidences, never a value). None when no
 * job has one.
 *
 * @example
 * reviewLines(results);
 * // ["review maria.wav  4f2c...  orderNumber: the recogniser's confidence in its words 0.21 is below 0.5; open its record"]
 */
export function reviewLines(results: readonly JobResult[]): string[] {
  return results.flatMap((result) => {
    const review = result.report?.review ?? [];
    if (review.length === 0) return [];
    return [
      `review ${displayName(result.file.name)}  ${result.jobId}  ${review.map(why).join("; ")}; open its record`,
    ];
  });
}

function why({ fact, reason }: FactReview): string {
  return `${fact}: ${reason}`;
}

/** The closing summary: counts, wall time, how many records need review, where to look. */
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
  const review = count((result) => (result.report?.review?.length ?? 0) > 0);
  const reviewNote = review > 0 ? ` (${review} need review, listed below)` : "";
  return `${results.length} job(s): ${[`${succeeded} succeeded${reviewNote}`, ...skipped, `${failed} failed`].join(", ")} in ${seconds(elapsedMs)}; artifacts, lineage and reports in ${storeDir}`;
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
    return stage === "Synthesize" && ttfb !== undefined ? `${base} (${ttfbText(ttfb, timings)})` : base;
  });
  const total = find(report.timings, "job.endToEnd");
  return [...parts, ...(total === undefined ? [] : [`end-to-end ${milliseconds(total)}`])].join(" · ");
}

/**
 * `ttfb 350 ms`, and where the synthesizer saw its request go onto the wire, the two parts it adds
 * up to: `ttfb 350 ms = set-up 45 ms + wire 305 ms` (the client's set-up before the request's
 * first byte was written, then time to first audio on the wire).
 */
function ttfbText(ttfb: number, timings: Timing[]): string {
  const setup = find(timings, "synthesize.clientSetup");
  const wire = find(timings, "synthesize.wireTtfb");
  const parts =
    setup === undefined || wire === undefined
      ? ""
      : ` = set-up ${milliseconds(setup)} + wire ${milliseconds(wire)}`;
  return `ttfb ${milliseconds(ttfb)}${parts}`;
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
