import { type LoadQuotas, loadReport, productionLoadQuotas, runLoad } from "@voxtrail/operator/load";
import { RETRY_CLASSES } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";

/**
 * `npm run load`'s harness on a small load: 12 voicemails in a burst against quotas shrunk so that
 * they overflow them as 10,000 overflow AWS's: one concurrent Transcribe job whose jobs last 60 s
 * per audio second (about 1,000 s each), so the queue holds the burst for about 3.3 simulated hours
 * (within the workflow's 5 hours of waits, MAX_TRANSCRIPTION_WAITS);
 * a Sonic endpoint of one instance of 4 generations behind a Synthesize gate of 3. The design as
 * staged (queueing on, the gate in place) must finish every voicemail; the same load with
 * queueing off and the gate removed must fail some, as its jobs' throttle retries (about 2 hours at
 * most, RETRY_CLASSES.throttled) run out before a slot frees: the harness tells the two apart.
 */
const VOICEMAILS = 12;

function smallQuotas(design: { queueing: boolean; synthesizeGate: boolean }): LoadQuotas {
  const production = productionLoadQuotas();
  const { synthesize: _gate, ...otherReservations } = production.lambda.reserved;
  return {
    ...production,
    transcribe: {
      quotas: { ...production.transcribe.quotas, concurrentJobs: 1 },
      queueing: design.queueing,
      jobRunTime: { fixedSeconds: 0, secondsPerAudioSecond: 60 },
    },
    sonic: {
      ...production.sonic,
      capacity: { generationsPerInstance: 4, instances: 1 },
    },
    lambda: {
      ...production.lambda,
      reserved: design.synthesizeGate ? { ...otherReservations, synthesize: 3 } : otherReservations,
    },
  };
}

/** The report of a load run of `voicemails` arriving at once under `quotas`. */
async function burst(voicemails: number, quotas: LoadQuotas) {
  return loadReport(await runLoad({ voicemails, arrival: { kind: "burst" }, quotas }));
}

describe("npm run load's harness", () => {
  it("finishes every voicemail of a load the staged design's quotas can hold", async () => {
    const report = await burst(VOICEMAILS, smallQuotas({ queueing: true, synthesizeGate: true }));
    expect(report.failed).toEqual({ total: 0, byError: {} });
    expect({ completed: report.completed, duplicated: report.duplicated, lost: report.lost }).toEqual({
      completed: VOICEMAILS,
      duplicated: 0,
      lost: 0,
    });
    const peak = (name: string) => report.quotas.find((quota) => quota.name === name);
    expect(peak("transcribe.concurrentJobs")).toMatchObject({ peak: 1, limit: 1 });
    expect(peak("transcribe.queuedJobs")?.peak).toBeGreaterThan(VOICEMAILS / 2);
    expect(peak("lambda.reserved:synthesize")?.peak).toBeLessThanOrEqual(3);
    // The queue holds the burst for hours of simulated time: the drain is bound by Transcribe.
    expect(report.drain.tightest).toBe("Transcribe");
    expect(report.drain.seconds).toBeGreaterThanOrEqual(report.drain.minimumSeconds);
    // Every rate admitted at most its limit a second; what arrived beyond it was refused and retried.
    for (const quota of report.quotas) expect(quota.peak, quota.name).toBeLessThanOrEqual(quota.limit);
    // The store's lineage, signed after the run, verifies: every job, artifact and link.
    expect(report.lineage).toMatchObject({ ok: true, jobs: VOICEMAILS, signedJobs: VOICEMAILS, issues: {} });
  }, 120_000);

  it("fails jobs of the same load with queueing off and no Synthesize gate", async () => {
    const report = await burst(VOICEMAILS, smallQuotas({ queueing: false, synthesizeGate: false }));
    expect(report.failed.total).toBeGreaterThan(0);
    expect(Object.keys(report.failed.byError)).toContain("TranscribeFailed: TranscriptionThrottled");
    expect(report.completed + report.failed.total).toBe(VOICEMAILS);
  }, 120_000);
});

/**
 * The Reason step under a Bedrock-like throttle (the local reasoner behind `quotas.bedrock`):
 * 10 voicemails in a burst against 2 requests a minute must all complete, the workflow waiting out
 * the refusals (`ReasoningThrottled`, RETRY_CLASSES.throttled); against a token quota no call fits
 * under, the same retries run out and the jobs fail with the throttle's name.
 */
describe("npm run load's Bedrock-like throttle", () => {
  const THROTTLED_VOICEMAILS = 10;

  it("finishes every voicemail through 2 requests a minute, no minute accepting more", async () => {
    const report = await burst(THROTTLED_VOICEMAILS, {
      ...productionLoadQuotas(),
      bedrock: { requestsPerMinute: 2 },
    });
    expect(report.failed).toEqual({ total: 0, byError: {} });
    expect({ completed: report.completed, duplicated: report.duplicated, lost: report.lost }).toEqual({
      completed: THROTTLED_VOICEMAILS,
      duplicated: 0,
      lost: 0,
    });
    const requests = report.quotas.find((quota) => quota.name === "bedrock.requestsPerMinute");
    expect(requests).toMatchObject({ peak: 2, limit: 2 });
    expect(requests?.refused).toBeGreaterThan(0);
    expect(report.inputs.simulated.join("\n")).toMatch(/reasoning: the local reasoner behind a simulated/);
    // 10 requests at 2 a minute: the last Reason starts 4 minutes in at the soonest.
    expect(report.drain.bounds).toContainEqual(expect.objectContaining({ stage: "Reason", seconds: 240 }));
    expect(report.drain.seconds).toBeGreaterThanOrEqual(240);
  }, 120_000);

  it("fails the jobs with ReasoningThrottled once their retries run out against a quota no call fits", async () => {
    const voicemails = 3;
    const report = await burst(voicemails, {
      ...productionLoadQuotas(),
      bedrock: { requestsPerMinute: 2, tokensPerMinute: 100 },
    });
    expect(report.completed).toBe(0);
    expect(report.failed).toEqual({
      total: voicemails,
      byError: { "ReasonFailed: ReasoningThrottled": voicemails },
    });
    const tokens = report.quotas.find((quota) => quota.name === "bedrock.tokensPerMinute");
    expect(tokens).toMatchObject({ peak: 0, limit: 100 });
    // Each job's Reason is tried once and retried RETRY_CLASSES.throttled's maxAttempts times.
    expect(tokens?.refused).toBe(voicemails * (1 + RETRY_CLASSES.throttled.policy.maxAttempts));
  }, 120_000);
});
