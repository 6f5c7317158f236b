import { round, type TimingSample } from "@voxtrail/core";
import { VOICEMAIL_STAGES } from "@voxtrail/workflow";
import type { JobData } from "./job-data";
import { type Distribution, distribution } from "./percentiles";
import { JOB_STAGE, jobSamples } from "./samples";

/** One row of the percentile table: one named timing of one stage. */
export interface StageRow {
  stage: string;
  timing: string;
  startEvent: string;
  endEvent: string;
  distribution: Distribution;
}

/** A slow job and the stage that made it slow: the one furthest above its own median (none when no stage was above it). */
export interface SlowJob {
  jobId: string;
  outcome: "succeeded" | "failed" | "unfinished";
  endToEndMs: number;
  culprit?: { stage: string; timing: string; ms: number; medianMs: number; excessMs: number };
}

/** The smallest and largest of a figure. */
export interface Range {
  min: number;
  max: number;
}

/** What the figures of one stage were measured under. */
export interface StageConditions {
  stage: string;
  attempts: number;
  processors: Array<{ provider: string; model: string; version: string; attempts: number }>;
  payloadBytes: Range;
  jobsInFlight?: Range;
  activeStreams?: Range;
  audioMs?: Range;
}

/** How synthesis streams delivered their audio, pooled over every stream. */
export interface DeliverySummary {
  streams: number;
  /** Every inter-chunk gap of every stream. */
  gaps?: Distribution;
  stallThresholdMs: number;
  stalls: Array<{ jobId: string; afterChunk: number; ms: number }>;
  rtf?: Distribution;
}

/** One job on a time axis that starts at its S3 event: stage bars, the queue, first audio. */
export interface JobTimeline {
  jobId: string;
  outcome: SlowJob["outcome"];
  eventTime: string;
  /** From the event to the last thing that happened (report written, or last attempt ended). */
  spanMs: number;
  queue?: { startMs: number; endMs: number };
  bars: Array<{ stage: string; attempt: number; outcome: string; startMs: number; endMs: number }>;
  /** When the first synthesized audio arrived, and the ttfb that ended there. */
  ttfb?: { atMs: number; ms: number };
}

/** The whole latency report: what `voxtrail report --json` prints and the HTML page draws. */
export interface LatencyReport {
  generatedAt: string;
  /** How percentiles are computed. */
  method: "nearest-rank over raw samples";
  jobs: { total: number; succeeded: number; failed: number; unfinished: number };
  /** Attempts that failed: their timings are not in the percentiles. */
  failedAttempts: number;
  rows: StageRow[];
  slowest: SlowJob[];
  conditions: StageConditions[];
  delivery?: DeliverySummary;
  timelines: JobTimeline[];
}

/**
 * Builds the latency report of `jobs`: per stage and timing, count/p50/p95/p99/max over the raw
 * samples of succeeded attempts; the `slowest` jobs by end to end, each with the stage furthest
 * above its median; the conditions behind the figures; synthesis delivery; a timeline per job.
 *
 * @example
 * const { jobs } = await readJobs(store, { all: true });
 * const report = buildLatencyReport(jobs, { slowest: 5 });
 */
export function buildLatencyReport(
  jobs: JobData[],
  options: { slowest?: number; now?: Date } = {},
): LatencyReport {
  const samples = jobs.flatMap(jobSamples);
  const rows = stageRows(samples);
  const outcomes = jobs.map(outcomeOf);
  return {
    generatedAt: (options.now ?? new Date()).toISOString(),
    method: "nearest-rank over raw samples",
    jobs: {
      total: jobs.length,
      succeeded: outcomes.filter((outcome) => outcome === "succeeded").length,
      failed: outcomes.filter((outcome) => outcome === "failed").length,
      unfinished: outcomes.filter((outcome) => outcome === "unfinished").length,
    },
    failedAttempts: jobs.flatMap((job) => job.records).filter((record) => record.outcome === "failed").length,
    rows,
    slowest: slowestJobs(jobs, samples, options.slowest ?? 5),
    conditions: stageConditions(samples),
    ...deliveryOf(jobs),
    timelines: jobs.map(timelineOf),
  };
}

/** `synthesize.ttfb`'s two parts sort right after it, so that the table shows them beside it. */
const SORTED_AS: Record<string, string> = {
  "synthesize.clientSetup": "synthesize.ttfb 1",
  "synthesize.wireTtfb": "synthesize.ttfb 2",
};

function sortName(timing: string): string {
  return SORTED_AS[timing] ?? timing;
}

/** Stages in workflow order, then any others (failure recorders), then the job itself. */
function stageOrder(stage: string): number {
  const index = (VOICEMAIL_STAGES as readonly string[]).indexOf(stage);
  if (index >= 0) return index;
  return stage === JOB_STAGE ? 1000 : 100;
}

function byStageOrder(a: string, b: string): number {
  return stageOrder(a) - stageOrder(b) || a.localeCompare(b);
}

function stageRows(samples: TimingSample[]): StageRow[] {
  const groups = new Map<string, TimingSample[]>();
  for (const sample of samples) {
    const key = `${sample.stage}\u0000${sample.name}`;
    groups.set(key, [...(groups.get(key) ?? []), sample]);
  }
  const rows: StageRow[] = [];
  for (const group of groups.values()) {
    const first = group[0] as TimingSample;
    const measured = distribution(group.map((sample) => sample.ms));
    if (!measured) continue;
    rows.push({
      stage: first.stage,
      timing: first.name,
      startEvent: first.startEvent,
      endEvent: first.endEvent,
      distribution: measured,
    });
  }
  return rows.sort(
    (a, b) => byStageOrder(a.stage, b.stage) || sortName(a.timing).localeCompare(sortName(b.timing)),
  );
}

function outcomeOf(job: JobData): SlowJob["outcome"] {
  return job.report?.outcome ?? "unfinished";
}

/** The timing that stands for a stage's whole attempt: `<stage>.duration`, or the queue delay. */
function isStageDuration(sample: TimingSample): boolean {
  return sample.name === `${sample.stage.toLowerCase()}.duration` || sample.name === "ingest.queueDelay";
}

function slowestJobs(jobs: JobData[], samples: TimingSample[], limit: number): SlowJob[] {
  const durations = samples.filter(isStageDuration);
  const medians = new Map<string, number>();
  for (const name of new Set(durations.map((sample) => sample.name))) {
    const measured = distribution(durations.filter((s) => s.name === name).map((s) => s.ms));
    if (measured) medians.set(name, measured.p50);
  }
  const slow = jobs.map((job): SlowJob => {
    const timeline = timelineOf(job);
    const endToEnd = job.report?.timings.find((timing) => timing.name === "job.endToEnd")?.ms;
    // A stage retried counts with all its attempts: retries are part of what made the job slow.
    const perTiming = new Map<string, { stage: string; ms: number }>();
    for (const sample of durations.filter((s) => s.jobId === job.jobId)) {
      const seen = perTiming.get(sample.name);
      perTiming.set(sample.name, { stage: sample.stage, ms: (seen?.ms ?? 0) + sample.ms });
    }
    let culprit: SlowJob["culprit"];
    for (const [timing, { stage, ms }] of perTiming) {
      const medianMs = medians.get(timing) ?? ms;
      const excessMs = round(ms - medianMs);
      if (excessMs > (culprit?.excessMs ?? 0)) culprit = { stage, timing, ms, medianMs, excessMs };
    }
    return {
      jobId: job.jobId,
      outcome: outcomeOf(job),
      endToEndMs: endToEnd ?? timeline.spanMs,
      ...(culprit ? { culprit } : {}),
    };
  });
  return slow.sort((a, b) => b.endToEndMs - a.endToEndMs).slice(0, limit);
}

function rangeOf(values: Array<number | undefined>): Range | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  if (known.length === 0) return undefined;
  return { min: Math.min(...known), max: Math.max(...known) };
}

function stageConditions(samples: TimingSample[]): StageConditions[] {
  // One sample per attempt: the stage's duration carries the attempt's conditions.
  const attempts = samples.filter((sample) => isStageDuration(sample) && sample.name !== "ingest.queueDelay");
  const stages = [...new Set(attempts.map((sample) => sample.stage))].sort(byStageOrder);
  return stages.map((stage) => {
    const ofStage = attempts.filter((sample) => sample.stage === stage);
    const processors = new Map<string, StageConditions["processors"][number]>();
    for (const { provider, model, version } of ofStage) {
      const key = `${provider}\u0000${model}\u0000${version}`;
      const seen = processors.get(key);
      processors.set(key, { provider, model, version, attempts: (seen?.attempts ?? 0) + 1 });
    }
    const jobsInFlight = rangeOf(ofStage.map((sample) => sample.jobsInFlight));
    const activeStreams = rangeOf(ofStage.map((sample) => sample.activeStreams));
    const audioMs = rangeOf(ofStage.map((sample) => sample.audioMs));
    return {
      stage,
      attempts: ofStage.length,
      processors: [...processors.values()],
      payloadBytes: rangeOf(ofStage.map((sample) => sample.payloadBytes)) ?? { min: 0, max: 0 },
      ...(jobsInFlight ? { jobsInFlight } : {}),
      ...(activeStreams ? { activeStreams } : {}),
      ...(audioMs ? { audioMs } : {}),
    };
  });
}

function deliveryOf(jobs: JobData[]): { delivery?: DeliverySummary } {
  const streams = jobs.flatMap((job) =>
    job.records.flatMap((record) => (record.delivery ? [{ jobId: job.jobId, ...record.delivery }] : [])),
  );
  const first = streams[0];
  if (!first) return {};
  const gaps = distribution(streams.flatMap((stream) => stream.gapsMs));
  const rtf = distribution(streams.filter((stream) => stream.audioMs > 0).map((stream) => stream.rtf));
  return {
    delivery: {
      streams: streams.length,
      ...(gaps ? { gaps } : {}),
      stallThresholdMs: first.stallThresholdMs,
      stalls: streams.flatMap((stream) => stream.stalls.map((stall) => ({ jobId: stream.jobId, ...stall }))),
      ...(rtf ? { rtf } : {}),
    },
  };
}

/**
 * A job on a time axis from its S3 event. Positions come from wall-clock times (the event, the
 * execution start, each attempt's start and end), since they are where separate processes meet;
 * the ttfb marker adds monotonic durations measured inside the synthesis attempt.
 */
function timelineOf(job: JobData): JobTimeline {
  const origin = Date.parse(job.report?.eventTime ?? job.records[0]?.startedAt ?? "");
  const at = (iso: string) => round(Date.parse(iso) - origin);
  const bars = job.records.map((record) => ({
    stage: record.stage,
    attempt: record.attempt,
    outcome: record.outcome,
    startMs: at(record.startedAt),
    endMs: at(record.endedAt),
  }));
  const ends = [...bars.map((bar) => bar.endMs), ...(job.report ? [at(job.report.writtenAt)] : [])];
  const synthesis = [...job.records]
    .reverse()
    .find((record) => record.stage === "Synthesize" && record.outcome === "succeeded");
  const ms = (name: string) => synthesis?.timings.find((timing) => timing.name === name)?.ms;
  const ttfb = ms("synthesize.ttfb");
  const setup = ms("synthesize.setup") ?? 0;
  return {
    jobId: job.jobId,
    outcome: outcomeOf(job),
    eventTime: new Date(origin).toISOString(),
    spanMs: Math.max(0, ...ends),
    ...(job.report ? { queue: { startMs: 0, endMs: at(job.report.execution.startTime) } } : {}),
    bars,
    ...(synthesis && ttfb !== undefined
      ? { ttfb: { atMs: round(at(synthesis.startedAt) + setup + ttfb), ms: ttfb } }
      : {}),
  };
}
