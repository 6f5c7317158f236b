import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ActivityRecord } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, describe, expect, test } from "vitest";
import { readJobs } from "../src/job-data";
import { buildLatencyReport } from "../src/latency-report";
import { lineageGraph } from "../src/lineage-diagram";
import { renderText } from "../src/render-text";
import { storeJobs, usualJob } from "./synthetic-jobs";

// Twenty jobs whose transcription takes 1010, 1020, ... 1200 ms, and one of them (job 7) whose
// synthesis stalls: every figure below follows from those inputs.
const jobs = Array.from({ length: 20 }, (_, i) =>
  usualJob(i, 1010 + i * 10, i === 7 ? { synthesizeMs: 2400, gapsMs: [2, 1800, 3] } : {}),
);

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("buildLatencyReport", () => {
  const report = buildLatencyReport(jobs, { now: new Date("2025-01-02T00:00:00Z") });
  const row = (stage: string, timing: string) =>
    report.rows.find((r) => r.stage === stage && r.timing === timing)?.distribution;

  test("percentiles per stage and timing come from the raw samples, by nearest rank", () => {
    expect(row("Transcribe", "transcribe.duration")).toEqual({
      count: 20,
      p50: 1100,
      p95: 1190,
      p99: 1200,
      max: 1200,
    });
    // 19 syntheses of 400 ms and one of 2400 ms: the median stays 400, the tail shows the stall.
    expect(row("Synthesize", "synthesize.duration")).toEqual({
      count: 20,
      p50: 400,
      p95: 400,
      p99: 2400,
      max: 2400,
    });
    expect(row("Ingest", "ingest.queueDelay")?.p50).toBe(40);
    expect(row("Job", "job.endToEnd")?.count).toBe(20);
    expect(report.rows.map((r) => r.stage)).toEqual(
      [...report.rows.map((r) => r.stage)].sort(
        (a, b) =>
          ["Ingest", "Transcribe", "Reason", "Synthesize", "Finalize", "Job"].indexOf(a) -
          ["Ingest", "Transcribe", "Reason", "Synthesize", "Finalize", "Job"].indexOf(b),
      ),
    );
  });

  test("the slowest job names the stage that made it slow, not the one that is always long", () => {
    const [slowest, next] = report.slowest;
    expect(slowest?.jobId).toBe("job-007");
    // Transcription is the longest stage of every job, but synthesis is what ran 2 s over its median.
    expect(slowest?.culprit).toEqual({
      stage: "Synthesize",
      timing: "synthesize.duration",
      ms: 2400,
      medianMs: 400,
      excessMs: 2000,
    });
    expect(next?.jobId).toBe("job-019");
    expect(next?.culprit?.stage).toBe("Transcribe");
  });

  test("synthesis delivery pools every gap and lists the stall", () => {
    expect(report.delivery?.gaps?.count).toBe(60);
    expect(report.delivery?.gaps?.max).toBe(1800);
    expect(report.delivery?.stalls).toEqual([{ jobId: "job-007", afterChunk: 2, ms: 1800 }]);
  });

  test("conditions name the processors and the load behind the figures", () => {
    const transcribe = report.conditions.find((c) => c.stage === "Transcribe");
    expect(transcribe).toEqual({
      stage: "Transcribe",
      attempts: 20,
      processors: [{ provider: "pocketsphinx", model: "pocketsphinx-model", version: "1.2", attempts: 20 }],
      payloadBytes: { min: 96_000, max: 96_000 },
      jobsInFlight: { min: 1, max: 3 },
    });
    const text = renderText(report);
    expect(text).toContain("pocketsphinx pocketsphinx-model 1.2");
    expect(text).toMatch(
      /Transcribe\s+transcribe\.duration\s+handler\.start -> durable\s+20\s+1\.10 s\s+1\.19 s\s+1\.20 s\s+1\.20 s/,
    );
    expect(text).toContain("job-007  succeeded   3.58 s  Synthesize 2.40 s (median 400 ms, +2.00 s)");
  });

  test("a job's timeline starts at its S3 event and marks the first audio", () => {
    const timeline = report.timelines[0];
    expect(timeline?.queue).toEqual({ startMs: 0, endMs: 40 });
    expect(timeline?.bars.map((bar) => [bar.stage, bar.startMs, bar.endMs])).toEqual([
      ["Ingest", 40, 70],
      ["Transcribe", 70, 1080],
      ["Reason", 1080, 1100],
      ["Synthesize", 1100, 1500],
      ["Finalize", 1500, 1515],
    ]);
    // Synthesis began at 1100 ms; 5 ms of setup, then 120 ms to the first audio.
    expect(timeline?.ttfb).toEqual({ atMs: 1225, ms: 120 });
  });

  test("ttfb's two parts, the client's set-up and time to first audio on the wire, are listed beside it", () => {
    const job = usualJob(0, 1000);
    const synthesis = job.records.find((record) => record.stage === "Synthesize");
    synthesis?.timings.push(
      {
        name: "synthesize.wireTtfb",
        startEvent: "request.firstByteWritten",
        endEvent: "audio.firstChunk",
        ms: 90,
      },
      {
        name: "synthesize.clientSetup",
        startEvent: "request.sent",
        endEvent: "request.firstByteWritten",
        ms: 30,
      },
    );
    const names = buildLatencyReport([job], { now: new Date("2025-01-02T00:00:00Z") })
      .rows.filter((row) => row.stage === "Synthesize")
      .map((row) => row.timing);
    const at = names.indexOf("synthesize.ttfb");
    expect(names.slice(at, at + 3)).toEqual([
      "synthesize.ttfb",
      "synthesize.clientSetup",
      "synthesize.wireTtfb",
    ]);
  });
});

describe("reading a store", () => {
  test("reads reports and activity records, skips what does not parse, and keeps old records", async () => {
    const root = await mkdtemp(join(tmpdir(), "voxtrail-report-"));
    dirs.push(root);
    const store = new DirectoryStore({ root });
    await storeJobs(store, jobs.slice(0, 3));
    // A record written before conditions existed (schema version 1) still counts.
    const old = ActivityRecord.parse({ ...jobs[0]?.records[1], schemaVersion: 1, conditions: undefined });
    await store.put(keys.lineage("job-000", "Transcribe", 2), JSON.stringify(old), {
      contentType: "application/json",
    });
    await store.put(keys.lineage("job-001", "Reason", 2), "{ not json", { contentType: "application/json" });

    const { jobs: read, unreadable } = await readJobs(store, { all: true });
    expect(read.map((job) => job.jobId)).toEqual(["job-000", "job-001", "job-002"]);
    expect(unreadable).toEqual(["lineage/job-001/reason-02.json"]);
    const report = buildLatencyReport(read);
    const transcribe = report.conditions.find((c) => c.stage === "Transcribe");
    expect(transcribe?.attempts).toBe(4);
    expect(transcribe?.processors).toEqual([
      { provider: "pocketsphinx", model: "pocketsphinx-model", version: "1.2", attempts: 4 },
    ]);

    const one = await readJobs(store, { jobId: "job-002" });
    expect(one.jobs).toHaveLength(1);
    expect((await readJobs(store, { jobId: "nope" })).jobs).toEqual([]);
  });
});

describe("lineageGraph", () => {
  test("links artifact -> activity -> artifact, the voicemail first", () => {
    const graph = lineageGraph(jobs[0]?.records ?? []);
    const activities = graph.nodes.filter((n) => n.type === "activity");
    expect(activities.map((n) => n.label)).toEqual([
      "Ingest #1",
      "Transcribe #1",
      "Reason #1",
      "Synthesize #1",
      "Finalize #1",
    ]);
    expect(graph.nodes.filter((n) => n.type === "artifact").map((n) => [n.label, n.depth])).toEqual([
      ["source-audio", 0],
      ["normalized-audio", 2],
      ["transcript", 4],
      ["record", 6],
      ["reply-text", 6],
      ["reply-audio", 8],
      ["report", 10],
    ]);
    // Finalize reads six artifacts and writes the report; 1 + 1 + 1 + 2 + 1 + 6 + 1 edges... counted:
    expect(graph.edges).toHaveLength(2 + 2 + 3 + 2 + 7);
  });
});
