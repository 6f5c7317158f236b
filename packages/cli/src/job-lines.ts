import type { JobReport, Timing } from "@voxtrail/core";
import type { JobResult } from "@voxtrail/local";

/** One line per job: outcome, name, job id, and per-stage times (or the failed stage and cause). */
export function jobLine(result: JobResult): string {
  const mark = result.status === "SUCCEEDED" ? "ok  " : "FAIL";
  const head = `${mark} ${result.file.name}  ${result.jobId}`;
  if (result.status === "NOT_MATCHED") return `${head}  not matched by the workflow's rule`;
  const times = result.report ? stageTimes(result.report) : "";
  if (result.status === "FAILED")
    return `${head}  ${result.error?.error}: ${result.error?.cause}${times ? `  (${times})` : ""}`;
  return `${head}  ${times}`;
}

/** The closing summary: counts, wall time, where to look. */
export function summaryLine(results: JobResult[], elapsedMs: number, storeDir: string): string {
  const succeeded = results.filter((result) => result.status === "SUCCEEDED").length;
  const failed = results.length - succeeded;
  return `${results.length} job(s): ${succeeded} succeeded, ${failed} failed in ${seconds(elapsedMs)}; artifacts, lineage and reports in ${storeDir}`;
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
