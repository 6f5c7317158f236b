import type { JobReport } from "@voxtrail/core";
import type { JobResult } from "@voxtrail/local";
import { describe, expect, it } from "vitest";
import { jobLine, reviewLines, summaryLine } from "../src/job-lines";

const REVIEW: NonNullable<JobReport["review"]> = [
  {
    fact: "orderNumber",
    confidence: 0.21,
    threshold: 0.5,
    reason: "the recogniser's confidence in its words 0.21 is below 0.5",
  },
  {
    fact: "day",
    confidence: 0.3,
    threshold: 0.5,
    reason: "the recogniser's confidence in its words 0.3 is below 0.5",
  },
];

/** A succeeded job whose report lists `review`. */
function succeeded(name: string, jobId: string, review?: JobReport["review"]): JobResult {
  const report = {
    schemaVersion: 1,
    jobId,
    outcome: "succeeded",
    source: { bucket: "b", key: `incoming/${name}` },
    eventTime: "2026-01-01T00:00:00.000Z",
    execution: { id: "e", startTime: "2026-01-01T00:00:00.000Z" },
    artifacts: [],
    stages: [],
    timings: [],
    ...(review ? { review } : {}),
    writtenAt: "2026-01-01T00:00:01.000Z",
  } satisfies JobReport;
  return { key: `incoming/${name}`, jobId, status: "SUCCEEDED", file: { path: `/in/${name}`, name }, report };
}

describe("voxtrail run's lines for jobs that need review", () => {
  const results = [succeeded("a.wav", "job-a", REVIEW), succeeded("b.wav", "job-b")];

  it("the job's line flags the facts held for review", () => {
    expect(jobLine(results[0] as JobResult)).toMatch(/^ok {3}a\.wav {2}job-a .*REVIEW orderNumber, day$/);
    expect(jobLine(results[1] as JobResult)).not.toContain("REVIEW");
  });

  it("the summary counts them, and a line per job names each fact and why", () => {
    expect(summaryLine(results, 1000, "/store")).toMatch(
      /^2 job\(s\): 2 succeeded \(1 need review, listed below\), 0 failed/,
    );
    expect(reviewLines(results)).toEqual([
      "review a.wav  job-a  orderNumber: the recogniser's confidence in its words 0.21 is below 0.5; " +
        "day: the recogniser's confidence in its words 0.3 is below 0.5; open its record",
    ]);
  });

  it("says nothing of review when no job needs it", () => {
    expect(summaryLine([results[1] as JobResult], 1000, "/store")).not.toContain("review");
    expect(reviewLines([results[1] as JobResult])).toEqual([]);
  });
});

describe("voxtrail run's line for a synthesis whose request was seen on the wire", () => {
  const timing = (name: string, startEvent: string, endEvent: string, ms: number) => ({
    name,
    startEvent,
    endEvent,
    ms,
  });
  const withStages = (timings: ReturnType<typeof timing>[]): JobResult => {
    const result = succeeded("a.wav", "job-a");
    if (result.report) result.report.stages = [{ stage: "Synthesize", timings }];
    return result;
  };
  const duration = timing("synthesize.duration", "handler.start", "output.durable", 420);
  const ttfb = timing("synthesize.ttfb", "request.sent", "audio.firstChunk", 350.4);

  it("shows the ttfb's set-up and on-the-wire parts beside it", () => {
    const line = jobLine(
      withStages([
        duration,
        ttfb,
        timing("synthesize.clientSetup", "request.sent", "request.firstByteWritten", 45.1),
        timing("synthesize.wireTtfb", "request.firstByteWritten", "audio.firstChunk", 305.3),
      ]),
    );
    expect(line).toContain("synthesize 420 ms (ttfb 350 ms = set-up 45 ms + wire 305 ms)");
  });

  it("shows the ttfb alone when the request was not seen on the wire", () => {
    expect(jobLine(withStages([duration, ttfb]))).toContain("synthesize 420 ms (ttfb 350 ms)");
  });
});
