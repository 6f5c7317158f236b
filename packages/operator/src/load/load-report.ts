import type { LoadLineageCheck } from "./load-lineage";
import type { LoadRunResult, VoicemailOutcome } from "./load-run";

/** A quota's peak use beside its limit. */
export interface PeakUse {
  name: string;
  peak: number;
  limit: number;
  /** Requests or invocations it refused, where it counts them. */
  refused?: number;
  /** For a rate: the most requests that arrived in one period, refused ones included. */
  demand?: number;
}

/** What `npm run load -- --json` prints. */
export interface LoadReport {
  voicemails: number;
  arrival: string;
  /** Where the voicemails came from, and what was simulated. */
  inputs: { voicemails: string; simulated: string[] };
  completed: number;
  /** Failed executions, by the Fail state's error and the cause's error name. */
  failed: { total: number; byError: Record<string, number> };
  /** Executions that ended as a duplicate delivery, plus jobs that succeeded more than once. */
  duplicated: number;
  /** Uploads with no finished job: no execution started, or no report written. */
  lost: number;
  /** Upload to execution end, in simulated seconds. */
  endToEndSeconds: { p50: number; p95: number; max: number };
  quotas: PeakUse[];
  drain: {
    /** First upload to last execution end, simulated seconds. */
    seconds: number;
    /** The least any schedule could take under the quotas: the tightest stage's work over its concurrency. */
    minimumSeconds: number;
    tightest: string;
    /** Each stage's bound (seconds), with how it was computed. */
    bounds: Array<{ stage: string; seconds: number; how: string }>;
  };
  utilization: {
    /** Transcribe job-seconds over concurrent-jobs x drain time. */
    transcribe: number;
    /** Sonic generation-seconds over the fleet's generation capacity, integrated over the drain. */
    sonic: number;
  };
  /** Sonic instances over the run (simulated seconds from the start). */
  sonicInstances: Array<{ atSeconds: number; count: number }>;
  transcribeRequests: Record<string, number>;
  /** Transcription events delivered to the resume step, and dropped after EventBridge's retries. */
  transcriptionEvents: { delivered: number; dropped: number };
  /** `lineage verify` of the store after the run, its jobs signed. */
  lineage: LoadLineageCheck;
  run: {
    wallSeconds: number;
    peakRssMb: number;
    clockAdvances: number;
    /** Real seconds the clock spent waiting for I/O to settle. */
    settleWallSeconds: number;
  };
}

/** Builds the report of a load run from its outcomes and the stand-ins' and gates' figures. */
export function loadReport(result: LoadRunResult): LoadReport {
  const { outcomes, quotas } = result;
  const byStatus = (status: VoicemailOutcome["status"]) => outcomes.filter((o) => o.status === status);
  const failed = byStatus("FAILED");
  const byError: Record<string, number> = {};
  for (const outcome of failed) {
    const name = `${outcome.error?.state}: ${outcome.error?.cause}`;
    byError[name] = (byError[name] ?? 0) + 1;
  }
  const successes = new Map<string, number>();
  for (const outcome of byStatus("SUCCEEDED"))
    successes.set(outcome.jobId, (successes.get(outcome.jobId) ?? 0) + 1);
  const repeated = [...successes.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  const lost = outcomes.filter((o) => o.status === "LOST" || !result.reported.has(o.jobId)).length;
  const ended = outcomes.filter((o) => o.endedAt !== undefined);
  const latencies = ended.map((o) => ((o.endedAt as number) - o.uploadedAt) / 1000).sort((a, b) => a - b);
  const firstUpload = Math.min(...outcomes.map((o) => o.uploadedAt));
  const lastEnd = Math.max(...ended.map((o) => o.endedAt as number));
  const drainSeconds = (lastEnd - firstUpload) / 1000;

  const transcribe = quotas.transcribe;
  const jobSeconds = outcomes.reduce(
    (sum, o) =>
      sum +
      transcribe.jobRunTime.fixedSeconds +
      (transcribe.jobRunTime.secondsPerAudioSecond * o.audioMs) / 1000,
    0,
  );
  const generationSeconds = result.sonicAudioSeconds * quotas.sonic.generationTime.secondsPerAudioSecond;
  const capacity = quotas.sonic.capacity;
  const maxInstances = capacity.autoscaling?.maxInstances ?? capacity.instances ?? 0;
  const sonicConcurrency = Math.min(
    maxInstances * capacity.generationsPerInstance,
    quotas.lambda.reserved.synthesize ?? Number.POSITIVE_INFINITY,
  );
  const n = outcomes.length;
  const bounds = [
    {
      stage: "Transcribe",
      seconds: jobSeconds / transcribe.quotas.concurrentJobs,
      how: `${round(jobSeconds)} job-seconds / ${transcribe.quotas.concurrentJobs} concurrent jobs`,
    },
    {
      stage: "Synthesize",
      seconds: generationSeconds / sonicConcurrency,
      how: `${round(generationSeconds)} generation-seconds / ${sonicConcurrency} (min of Sonic's ${maxInstances} x ${capacity.generationsPerInstance} and Synthesize's reserved concurrency)`,
    },
    ...(result.sonicUse.instances.length === 0
      ? []
      : [
          {
            stage: "Synthesize, as the endpoint scaled",
            seconds: secondsToGenerate(
              generationSeconds,
              result.sonicUse.instances.map(({ at, count }) => ({
                fromSeconds: Math.max(0, (at - result.virtualStart - firstUpload) / 1000),
                streams: Math.min(count * capacity.generationsPerInstance, sonicConcurrency),
              })),
            ),
            how: `${round(generationSeconds)} generation-seconds at the streams the endpoint's instances in service allowed from the first upload on (min of instances x ${capacity.generationsPerInstance} and ${sonicConcurrency}): its minimum instances until the autoscaling added more`,
          },
        ]),
    {
      stage: "StartExecution",
      seconds: Math.max(0, n - quotas.startExecution.bucket) / quotas.startExecution.refillPerSecond,
      how: `(${n} - ${quotas.startExecution.bucket} bucket) / ${quotas.startExecution.refillPerSecond} per second`,
    },
  ];
  const bedrock = quotas.bedrock;
  if (bedrock) {
    bounds.push({
      stage: "Reason",
      seconds: Math.max(0, Math.ceil(n / bedrock.requestsPerMinute) - 1) * 60,
      how: `(ceil(${n} requests / ${bedrock.requestsPerMinute}) - 1) minutes: the Bedrock-like throttle lets ${bedrock.requestsPerMinute} through each minute`,
    });
  }
  const longestJob = Math.max(
    ...outcomes.map(
      (o) =>
        transcribe.jobRunTime.fixedSeconds + (transcribe.jobRunTime.secondsPerAudioSecond * o.audioMs) / 1000,
    ),
  );
  const replyGeneration = generationSeconds / Math.max(1, n);
  bounds.push({
    stage: "one voicemail",
    seconds: longestJob + replyGeneration,
    how: `the longest Transcribe job (${round(longestJob)} s) + one reply's generation (${round(replyGeneration)} s), however idle the quotas`,
  });
  const tightest = bounds.reduce((a, b) => (b.seconds > a.seconds ? b : a));

  const instances = result.sonicUse.instances;
  let capacitySeconds = 0;
  const drainEndAbs = result.virtualStart + lastEnd;
  instances.forEach((entry, index) => {
    const from = Math.max(entry.at, result.virtualStart + firstUpload);
    const to = Math.min(instances[index + 1]?.at ?? drainEndAbs, drainEndAbs);
    if (to > from) capacitySeconds += ((to - from) / 1000) * entry.count * capacity.generationsPerInstance;
  });

  const rss = process.resourceUsage().maxRSS / 1024;
  return {
    voicemails: n,
    arrival: result.arrival.kind === "burst" ? "burst" : `rate:${result.arrival.perMinute}`,
    inputs: {
      voicemails: "copies of the bundled fixtures (fixtures/voicemail/*.wav), each under its own key",
      simulated: [
        "transcription: the Transcribe stand-in over SimulatedTranscriber (hears no audio, one fixed transcript); processor model and version say simulated",
        "synthesis: the Sonic stand-in over SimulatedSpeechEngine (silence as long as the reply); processor model and version say simulated",
        "time: a virtual clock (@sinonjs/fake-timers); figures in seconds are simulated unless named wall",
        ...(bedrock
          ? [
              "reasoning: the local reasoner behind a simulated Bedrock-like throttle (refusals are ReasoningThrottled, as the Bedrock reasoner maps ThrottlingException); processor model and version say simulated; not Bedrock",
            ]
          : []),
      ],
    },
    completed: byStatus("SUCCEEDED").length,
    failed: { total: failed.length, byError },
    duplicated: byStatus("DUPLICATE").length + repeated,
    lost,
    endToEndSeconds: {
      p50: round(percentile(latencies, 0.5)),
      p95: round(percentile(latencies, 0.95)),
      max: round(latencies.at(-1) ?? 0),
    },
    quotas: [
      ...result.transcribeUse.map(({ name, ...use }) => ({ name: `transcribe.${name}`, ...use })),
      {
        name: "sonic.inFlight",
        peak: result.sonicUse.inFlight.peak,
        limit: result.sonicUse.inFlight.capacity,
        refused: result.sonicUse.throttled,
      },
      ...result.lambdaUse.map((use) => ({
        name: `lambda.${use.name}`,
        peak: use.peak,
        limit: use.limit,
        refused: use.throttled,
      })),
      {
        name: "stepFunctions.startExecutionBucket",
        peak: result.startUse.bucketDrawn.peak,
        limit: result.startUse.bucketDrawn.limit,
        refused: result.startUse.throttled,
      },
      ...Object.entries(result.bedrockUse ?? {}).map(([name, use]) => ({ name: `bedrock.${name}`, ...use })),
    ],
    drain: {
      seconds: round(drainSeconds),
      minimumSeconds: round(tightest.seconds),
      tightest: tightest.stage,
      bounds: bounds.map((bound) => ({ ...bound, seconds: round(bound.seconds) })),
    },
    utilization: {
      transcribe: round(jobSeconds / (transcribe.quotas.concurrentJobs * drainSeconds)),
      sonic: round(capacitySeconds > 0 ? generationSeconds / capacitySeconds : 0),
    },
    sonicInstances: instances.map((entry) => ({
      atSeconds: round((entry.at - result.virtualStart) / 1000),
      count: entry.count,
    })),
    transcribeRequests: result.transcribeRequests,
    transcriptionEvents: result.eventDeliveries,
    lineage: result.lineage,
    run: {
      wallSeconds: round(result.wallMs / 1000),
      peakRssMb: Math.round(rss),
      clockAdvances: result.clock.advances,
      settleWallSeconds: round(result.clock.settleWallMs / 1000),
    },
  };
}

/** A few lines for a person: outcome, latency, drain against its bound, the quotas near their limits. */
export function humanSummary(report: LoadReport): string {
  const lines = [
    `${report.voicemails} voicemails (${report.arrival}): ${report.completed} completed, ${report.failed.total} failed, ${report.duplicated} duplicated, ${report.lost} lost`,
    ...Object.entries(report.failed.byError).map(([error, count]) => `  failed ${count} x ${error}`),
    `end to end (simulated): p50 ${report.endToEndSeconds.p50} s, p95 ${report.endToEndSeconds.p95} s, max ${report.endToEndSeconds.max} s`,
    `drain (simulated): ${report.drain.seconds} s; the quotas allow no less than ${report.drain.minimumSeconds} s (${report.drain.tightest})`,
    `utilization: Transcribe ${report.utilization.transcribe}, Sonic ${report.utilization.sonic}`,
    `lineage verify: ${report.lineage.ok ? "OK" : "FAILED"}, ${report.lineage.jobs} jobs, ${report.lineage.signedJobs} signed, ${report.lineage.artifactsChecked} artifacts re-hashed${Object.entries(
      report.lineage.issues,
    )
      .map(([problem, count]) => `; ${count} x ${problem}`)
      .join("")}`,
    "quotas (peak / limit, refused, demand):",
    ...report.quotas.map(
      (q) =>
        `  ${q.name.padEnd(42)} ${String(q.peak).padStart(6)} / ${q.limit}${q.refused ? `, ${q.refused} refused` : ""}${q.demand !== undefined && q.demand > q.peak ? `, demand ${q.demand}` : ""}`,
    ),
    `wall ${report.run.wallSeconds} s, peak RSS ${report.run.peakRssMb} MB (engines simulated: see --json)`,
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * The least time `work` generation-seconds take at the streams each step of `steps` allows from its
 * start on (the last step's for ever): the Sonic bound under the endpoint's instances as they were.
 */
function secondsToGenerate(work: number, steps: Array<{ fromSeconds: number; streams: number }>): number {
  let left = work;
  for (const [index, step] of steps.entries()) {
    const until = steps[index + 1]?.fromSeconds ?? Number.POSITIVE_INFINITY;
    const canDo = (until - step.fromSeconds) * step.streams;
    if (canDo >= left) return step.fromSeconds + left / step.streams;
    left -= canDo;
  }
  return Number.POSITIVE_INFINITY;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
