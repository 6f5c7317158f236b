import { formatBytes, formatMs, formatRange } from "./format";
import type { LatencyReport } from "./latency-report";

/**
 * The report as plain text for a terminal: the percentile table, synthesis delivery, the slowest
 * jobs with the stage that made each slow, and the conditions behind the figures.
 */
export function renderText(report: LatencyReport): string {
  const { jobs } = report;
  const lines = [
    `${jobs.total} job(s): ${jobs.succeeded} succeeded, ${jobs.failed} failed, ${jobs.unfinished} unfinished; percentiles by ${report.method}${report.failedAttempts ? ` (${report.failedAttempts} failed attempt(s) left out)` : ""}`,
    "",
    ...table(
      ["stage", "timing", "from -> to", "n", "p50", "p95", "p99", "max"],
      report.rows.map((row) => [
        row.stage,
        row.timing,
        `${row.startEvent} -> ${row.endEvent}`,
        String(row.distribution.count),
        formatMs(row.distribution.p50),
        formatMs(row.distribution.p95),
        formatMs(row.distribution.p99),
        formatMs(row.distribution.max),
      ]),
    ),
  ];
  const { delivery } = report;
  if (delivery) {
    const gaps = delivery.gaps;
    lines.push(
      "",
      `synthesis delivery: ${delivery.streams} stream(s)` +
        (gaps
          ? `; ${gaps.count} inter-chunk gaps p50 ${formatMs(gaps.p50)} p95 ${formatMs(gaps.p95)} p99 ${formatMs(gaps.p99)} max ${formatMs(gaps.max)}`
          : "") +
        `; ${delivery.stalls.length} stall(s) over ${formatMs(delivery.stallThresholdMs)}` +
        (delivery.rtf ? `; rtf p50 ${delivery.rtf.p50} max ${delivery.rtf.max}` : ""),
    );
  }
  if (report.slowest.length > 0) {
    lines.push("", "slowest jobs (end to end; the stage furthest above its median):");
    for (const job of report.slowest) {
      const culprit = job.culprit
        ? `${job.culprit.stage} ${formatMs(job.culprit.ms)} (median ${formatMs(job.culprit.medianMs)}, ${job.culprit.excessMs >= 0 ? "+" : "-"}${formatMs(Math.abs(job.culprit.excessMs))})`
        : "no stage above its median";
      lines.push(
        `  ${job.jobId}  ${job.outcome.padEnd(9)} ${formatMs(job.endToEndMs).padStart(8)}  ${culprit}`,
      );
    }
  }
  if (report.conditions.length > 0) {
    lines.push("", "conditions:");
    for (const stage of report.conditions) {
      const processors = stage.processors
        .map(
          (p) =>
            `${p.provider} ${p.model} ${p.version}${stage.processors.length > 1 ? ` ×${p.attempts}` : ""}`,
        )
        .join("; ");
      const load = [
        `input ${formatRange(stage.payloadBytes, formatBytes)}`,
        stage.audioMs ? `audio ${formatRange(stage.audioMs, formatMs)}` : "",
        stage.jobsInFlight ? `jobs in flight ${formatRange(stage.jobsInFlight, String)}` : "",
        stage.activeStreams ? `open streams ${formatRange(stage.activeStreams, String)}` : "",
      ].filter((part) => part !== "");
      lines.push(`  ${stage.stage} (${stage.attempts}): ${processors}; ${load.join(", ")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? "").length)));
  const numeric = (i: number) => i >= 3;
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (numeric(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
