import { formatBytes, formatMs, formatRange } from "./format";
import { escapeHtml } from "./html-escape";
import type { JobTimeline, LatencyReport } from "./latency-report";
import { type JobLineageDiagram, lineageSvg } from "./lineage-diagram";

/** The job whose lineage the page draws. */
export interface ChosenLineage {
  jobId: string;
  graph: JobLineageDiagram;
}

const STAGE_COLOURS: Record<string, string> = {
  Queue: "#b8c0cc",
  Ingest: "#5b8def",
  Transcribe: "#2bb37b",
  Reason: "#b07be0",
  Synthesize: "#f29b38",
  Finalize: "#6c7a89",
};

/**
 * One self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched): the percentile
 * table, synthesis delivery, the slowest jobs, the conditions, a waterfall per job (stage bars on a
 * time axis from the S3 event, the queue, the ttfb marked), and the lineage graph of one job.
 *
 * @example
 * await writeFile("report.html", renderHtml(report, { jobId, graph: lineageGraph(records) }));
 */
export function renderHtml(report: LatencyReport, lineage?: ChosenLineage): string {
  const { jobs } = report;
  const rows = report.rows
    .map(
      (row) =>
        `<tr data-stage="${escapeHtml(row.stage)}" data-timing="${escapeHtml(row.timing)}"><td>${escapeHtml(row.stage)}</td><td><code>${escapeHtml(row.timing)}</code><div class="events">${escapeHtml(row.startEvent)} → ${escapeHtml(row.endEvent)}</div></td>${[
          String(row.distribution.count),
          formatMs(row.distribution.p50),
          formatMs(row.distribution.p95),
          formatMs(row.distribution.p99),
          formatMs(row.distribution.max),
        ]
          .map((cell) => `<td class="num">${cell}</td>`)
          .join("")}</tr>`,
    )
    .join("");
  const delivery = report.delivery;
  const deliveryHtml = delivery
    ? `<section id="delivery"><h2>Synthesis delivery</h2><p>${delivery.streams} stream(s)${
        delivery.gaps
          ? `; ${delivery.gaps.count} gaps between audio chunks: p50 ${formatMs(delivery.gaps.p50)}, p95 ${formatMs(delivery.gaps.p95)}, p99 ${formatMs(delivery.gaps.p99)}, max ${formatMs(delivery.gaps.max)}`
          : ""
      }; ${delivery.stalls.length} stall(s) over ${formatMs(delivery.stallThresholdMs)}${
        delivery.rtf ? `; real-time factor p50 ${delivery.rtf.p50}, max ${delivery.rtf.max}` : ""
      }.</p></section>`
    : "";
  const slowest = report.slowest
    .map(
      (job) =>
        `<li data-job="${escapeHtml(job.jobId)}"><code>${escapeHtml(job.jobId)}</code> ${escapeHtml(job.outcome)}, ${formatMs(job.endToEndMs)}${
          job.culprit
            ? ` — <b>${escapeHtml(job.culprit.stage)}</b> ${formatMs(job.culprit.ms)} (median ${formatMs(job.culprit.medianMs)})`
            : ""
        }</li>`,
    )
    .join("");
  const conditions = report.conditions
    .map(
      (stage) =>
        `<tr data-stage="${escapeHtml(stage.stage)}"><td>${escapeHtml(stage.stage)}</td><td class="num">${stage.attempts}</td><td>${stage.processors
          .map((p) => `${escapeHtml(p.provider)} · ${escapeHtml(p.model)} · ${escapeHtml(p.version)}`)
          .join("<br>")}</td><td>${formatRange(stage.payloadBytes, formatBytes)}</td><td>${
          stage.jobsInFlight ? formatRange(stage.jobsInFlight, String) : "—"
        }</td><td>${stage.activeStreams ? formatRange(stage.activeStreams, String) : "—"}</td></tr>`,
    )
    .join("");
  const scale = Math.max(1, ...report.timelines.map((timeline) => timeline.spanMs));
  const waterfalls = report.timelines.map((timeline) => waterfall(timeline, scale)).join("");
  const lineageHtml = lineage
    ? `<section id="lineage-section"><h2>Lineage of <code>${escapeHtml(lineage.jobId)}</code></h2><p class="note">artifact → activity (read), activity → artifact (wrote), from the activity records under lineage/${escapeHtml(lineage.jobId)}/</p><div class="scroll">${lineageSvg(lineage.graph)}</div></section>`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>voxtrail latency report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
table{border-collapse:collapse}td,th{padding:4px 10px;border-bottom:1px solid #e3e6ea;text-align:left;vertical-align:top}
th{background:#f4f6f8}.num{text-align:right;font-variant-numeric:tabular-nums}
.events,.note{color:#66707d;font-size:12px}code{font-size:12px}
.job{margin:10px 0}.job h3{font-size:13px;margin:0 0 2px;font-weight:600}
.axis text,.bar text{font-size:11px;fill:#1d2330}.axis line{stroke:#ccd2d9}
.bar.failed rect{stroke:#d0312d;stroke-width:2}.ttfb line{stroke:#d0312d;stroke-width:2}.ttfb text{fill:#d0312d;font-size:11px}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
.node rect{fill:#eef3fb;stroke:#5b8def}.node.activity rect{fill:#2d3a4f;stroke:#2d3a4f}.node.activity text{fill:#fff}
.node.failed rect{fill:#fbeaea;stroke:#d0312d}.node.failed text{fill:#8b1a17}
.node .label{font-size:12px;font-weight:600}.node .detail{font-size:10px}.edge{fill:none;stroke:#667;stroke-width:1.2}
.scroll{overflow-x:auto}
</style></head><body>
<h1>voxtrail latency report</h1>
<p class="note">${jobs.total} job(s): ${jobs.succeeded} succeeded, ${jobs.failed} failed, ${jobs.unfinished} unfinished. Percentiles by ${escapeHtml(report.method)}${report.failedAttempts ? `; ${report.failedAttempts} failed attempt(s) left out` : ""}. Generated ${escapeHtml(report.generatedAt)}.</p>
<section><h2>Per stage</h2><table id="percentiles"><thead><tr><th>stage</th><th>timing (from → to)</th><th class="num">n</th><th class="num">p50</th><th class="num">p95</th><th class="num">p99</th><th class="num">max</th></tr></thead><tbody>${rows}</tbody></table></section>
${deliveryHtml}
<section id="slowest"><h2>Slowest jobs</h2><ol>${slowest}</ol></section>
<section><h2>Conditions</h2><table id="conditions"><thead><tr><th>stage</th><th class="num">attempts</th><th>provider · model · version</th><th>input bytes</th><th>jobs in flight</th><th>open streams</th></tr></thead><tbody>${conditions}</tbody></table></section>
<section id="waterfalls"><h2>Waterfall per job</h2><p class="legend">${Object.entries(STAGE_COLOURS)
    .map(([stage, colour]) => `<span><i style="background:${colour}"></i>${stage}</span>`)
    .join(
      "",
    )}<span><i style="background:#d0312d;width:2px"></i>first audio (ttfb)</span></p>${waterfalls}</section>
${lineageHtml}
</body></html>
`;
}

const LABEL_W = 90;
const PLOT_W = 760;
const ROW_H = 18;

/** One job's waterfall: a row per stage attempt (and the queue), on an axis shared by every job. */
function waterfall(timeline: JobTimeline, scale: number): string {
  const x = (ms: number) => LABEL_W + (Math.max(0, ms) / scale) * PLOT_W;
  const rows = [
    ...(timeline.queue ? [{ stage: "Queue", label: "queue", outcome: "succeeded", ...timeline.queue }] : []),
    ...timeline.bars.map((bar) => ({
      ...bar,
      label: bar.attempt > 1 ? `${bar.stage} #${bar.attempt}` : bar.stage,
    })),
  ];
  const height = rows.length * ROW_H + 26;
  const bars = rows
    .map((row, i) => {
      const y = i * ROW_H + 2;
      const width = Math.max(1.5, x(row.endMs) - x(row.startMs));
      const colour = STAGE_COLOURS[row.stage] ?? "#8a94a3";
      return `<g class="bar${row.outcome === "failed" ? " failed" : ""}" data-stage="${escapeHtml(row.stage)}" data-start-ms="${row.startMs}" data-end-ms="${row.endMs}"><text x="0" y="${y + 12}">${escapeHtml(row.label)}</text><rect x="${x(row.startMs)}" y="${y}" width="${width}" height="${ROW_H - 4}" fill="${colour}"/><title>${escapeHtml(row.label)}: ${formatMs(row.startMs)} → ${formatMs(row.endMs)} (${formatMs(row.endMs - row.startMs)})</title></g>`;
    })
    .join("");
  const synthRow = rows.findLastIndex((row) => row.stage === "Synthesize" && row.outcome === "succeeded");
  const ttfb =
    timeline.ttfb && synthRow >= 0
      ? `<g class="ttfb" data-ttfb-ms="${timeline.ttfb.ms}"><line x1="${x(timeline.ttfb.atMs)}" x2="${x(timeline.ttfb.atMs)}" y1="${synthRow * ROW_H}" y2="${synthRow * ROW_H + ROW_H}"/><text x="${x(timeline.ttfb.atMs) + 4}" y="${synthRow * ROW_H - 2 < 10 ? synthRow * ROW_H + 12 : synthRow * ROW_H - 2}">ttfb ${formatMs(timeline.ttfb.ms)}</text></g>`
      : "";
  const axisY = rows.length * ROW_H + 4;
  const ticks = axisTicks(scale)
    .map(
      (ms) =>
        `<line x1="${x(ms)}" x2="${x(ms)}" y1="0" y2="${axisY}"/><text x="${x(ms)}" y="${axisY + 14}" text-anchor="middle">${formatMs(ms)}</text>`,
    )
    .join("");
  return `<div class="job" data-job="${escapeHtml(timeline.jobId)}"><h3><code>${escapeHtml(timeline.jobId)}</code> ${escapeHtml(timeline.outcome)} · ${formatMs(timeline.spanMs)} from the S3 event at ${escapeHtml(timeline.eventTime)}</h3><svg class="waterfall" width="${LABEL_W + PLOT_W + 40}" height="${height}"><g class="axis">${ticks}</g>${bars}${ttfb}</svg></div>`;
}

/** Round tick positions (1, 2 or 5 times a power of ten) across `0..scale`. */
function axisTicks(scale: number): number[] {
  const raw = scale / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? power * 10;
  const ticks: number[] = [];
  for (let ms = 0; ms <= scale; ms += step) ticks.push(ms);
  return ticks;
}
