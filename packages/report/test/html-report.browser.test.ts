import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildLatencyReport } from "../src/latency-report";
import { lineageGraph } from "../src/lineage-diagram";
import { renderHtml } from "../src/render-html";
import { usualJob } from "./synthetic-jobs";

// The HTML report in headless Chromium (Debian's `chromium`), driven by playwright-core: what a
// person would see, asserted on the rendered page, with a screenshot kept for a look.

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`skipping the HTML report browser test: ${CHROMIUM} is missing (apt-get install chromium)`);

const jobs = Array.from({ length: 6 }, (_, i) =>
  usualJob(i, 1000 + i * 40, i === 4 ? { synthesizeMs: 1900, gapsMs: [2, 1300, 3] } : {}),
);
const report = buildLatencyReport(jobs);
const chosen = jobs[4];
const graph = lineageGraph(chosen?.records ?? []);

let work: string;
let context: BrowserContext;

beforeAll(async () => {
  if (!hasChromium) return;
  work = await mkdtemp(join(tmpdir(), "voxtrail-report-browser-"));
  await writeFile(join(work, "report.html"), renderHtml(report, { jobId: "job-004", graph }));
  context = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1100, height: 900 },
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  // The page and its screenshot stay for a look; only the browser profile goes.
  if (work) await rm(join(work, "profile"), { recursive: true, force: true });
});

describe.skipIf(!hasChromium)("the HTML report in Chromium", () => {
  test("shows the percentile table, a waterfall per job with ttfb, and the lineage graph", async () => {
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(join(work, "report.html")).href);
    const screenshot = join(work, "report.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    console.info(`HTML report screenshot: ${screenshot}`);

    // Self-contained: the page itself is the only thing loaded.
    expect(requests).toHaveLength(1);

    // The percentile table: one row per stage timing, with the figures the report computed.
    const rows = page.locator("table#percentiles tbody tr");
    expect(await rows.count()).toBe(report.rows.length);
    const synth = page.locator('table#percentiles tr[data-timing="synthesize.duration"] td');
    expect(await synth.allInnerTexts()).toEqual([
      "Synthesize",
      "synthesize.duration\nhandler.start → durable",
      "6",
      "400 ms",
      "1.90 s",
      "1.90 s",
      "1.90 s",
    ]);

    // One waterfall per job; each has a visible bar for the queue and every stage.
    const waterfalls = page.locator("#waterfalls .job");
    expect(await waterfalls.count()).toBe(6);
    const slowJob = page.locator('#waterfalls .job[data-job="job-004"]');
    const stages: Array<{ stage: string | null; width: number; left: number }> = [];
    for (const bar of await slowJob.locator("g.bar").all()) {
      const box = await bar.locator("rect").boundingBox();
      stages.push({ stage: await bar.getAttribute("data-stage"), width: box?.width ?? 0, left: box?.x ?? 0 });
    }
    expect(stages.map((bar) => bar.stage)).toEqual([
      "Queue",
      "Ingest",
      "Transcribe",
      "Reason",
      "Synthesize",
      "Finalize",
    ]);
    for (const bar of stages) expect(bar.width).toBeGreaterThan(0);
    const synthesize = stages.find((bar) => bar.stage === "Synthesize");
    const transcribe = stages.find((bar) => bar.stage === "Transcribe");
    // The slow synthesis is drawn longer than the transcription before it, and after it.
    expect(synthesize?.width).toBeGreaterThan(transcribe?.width ?? Number.POSITIVE_INFINITY);
    expect(synthesize?.left).toBeGreaterThan(transcribe?.left ?? Number.POSITIVE_INFINITY);

    // The ttfb marker sits inside the synthesis bar, labelled with its value.
    const marker = slowJob.locator("g.ttfb");
    expect(await marker.isVisible()).toBe(true);
    expect(await marker.locator("text").textContent()).toBe("ttfb 120 ms");
    const markerX = (await marker.locator("line").boundingBox())?.x ?? -1;
    expect(markerX).toBeGreaterThan(synthesize?.left ?? 0);
    expect(markerX).toBeLessThan((synthesize?.left ?? 0) + (synthesize?.width ?? 0));

    // The lineage graph of the chosen job: every node drawn, activities in stage order.
    const lineage = page.locator("svg#lineage");
    expect(await lineage.isVisible()).toBe(true);
    expect(await lineage.locator("g.node").count()).toBe(graph.nodes.length);
    expect(
      await lineage
        .locator('g.node[data-kind="activity"]')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-label"))),
    ).toEqual(["Ingest #1", "Transcribe #1", "Reason #1", "Synthesize #1", "Finalize #1"]);
    expect(await lineage.locator('g.node[data-kind="artifact"] .label').allTextContents()).toEqual([
      "source-audio",
      "normalized-audio",
      "transcript",
      "record",
      "reply-text",
      "reply-audio",
      "report",
    ]);
    expect(await lineage.locator("path.edge").count()).toBe(graph.edges.length);

    // Slowest jobs: the stalled synthesis is named.
    expect(await page.locator("#slowest li").first().textContent()).toContain(
      "Synthesize 1.90 s (median 400 ms)",
    );
  });
});
