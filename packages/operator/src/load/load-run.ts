import { DuplicateDelivery, mapLimit } from "@voxtrail/core";
import { objectCreatedEvent } from "@voxtrail/local";
import { ObjectCreatedEvent, sourceIdentityOf, VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";
import type { BedrockThrottle } from "./bedrock-throttle";
import { deliverWithRetries } from "./eventbridge-delivery";
import { type LoadLineageCheck, signAndVerifyLineage } from "./load-lineage";
import type { Arrival, LoadQuotas } from "./load-options";
import { type LoadPipeline, startLoadPipeline } from "./load-pipeline";
import { StartExecutionThrottled, StartRate } from "./start-rate";
import { VirtualClock, type VirtualClockStats } from "./virtual-clock";
import { type LoadVoicemail, loadVoicemails } from "./voicemail-source";

/** Uploads written to the store at once: real disk I/O, which takes no virtual time. */
const UPLOAD_CONCURRENCY = 64;

/** How one uploaded voicemail fared. */
export interface VoicemailOutcome {
  key: string;
  jobId: string;
  /** Virtual ms since the run began: the upload, the execution's start, its end. */
  uploadedAt: number;
  startedAt?: number;
  endedAt?: number;
  /** `LOST`: the upload's event never started an execution (EventBridge's retries used up). */
  status: "SUCCEEDED" | "FAILED" | "DUPLICATE" | "LOST";
  /** The Fail state's error and the cause's error name, when failed. */
  error?: { state: string; cause: string };
  /** StartExecution attempts EventBridge made. */
  startAttempts: number;
  audioMs: number;
}

/** Everything a load report is made from. */
export interface LoadRunResult {
  outcomes: VoicemailOutcome[];
  quotas: LoadQuotas;
  arrival: Arrival;
  /** Reports found in the store by job id (the job reached its report: finished or recorded failed). */
  reported: Set<string>;
  transcribeUse: ReturnType<LoadPipeline["transcribe"]["quotaUse"]>;
  transcribeRequests: Record<string, number>;
  sonicUse: ReturnType<LoadPipeline["sonic"]["capacityUse"]>;
  sonicAudioSeconds: number;
  lambdaUse: ReturnType<LoadPipeline["gates"]["use"]>;
  startUse: ReturnType<StartRate["use"]>;
  /** The Bedrock-like throttle's use, when the run had one. */
  bedrockUse?: ReturnType<BedrockThrottle["use"]>;
  eventDeliveries: { delivered: number; dropped: number };
  /** The store's lineage, signed and verified once every execution ended. */
  lineage: LoadLineageCheck;
  clock: VirtualClockStats;
  wallMs: number;
  /** The virtual time the run began at (epoch ms), for the instance history. */
  virtualStart: number;
}

/** What to run. */
export interface LoadRunOptions {
  voicemails: number;
  arrival: Arrival;
  quotas: LoadQuotas;
  /** Called as each voicemail's execution ends (progress). */
  onOutcome?: (outcome: VoicemailOutcome, virtualMs: number) => void;
  /** Called once every execution ended, before the store's lineage is signed and verified. */
  onLineageCheck?: () => void;
}

/**
 * Runs a load: installs the virtual clock, stands the pipeline up ({@link startLoadPipeline}),
 * uploads `voicemails` copies of the fixtures as they arrive (all at once, or `perMinute`), turns
 * each upload into the S3 "Object Created" event, matches it against the voicemail rule and starts
 * an execution through the StartExecution bucket, EventBridge retrying a throttled start; then
 * waits for every execution to end, reads back which jobs wrote their report, and signs and
 * verifies the store's lineage ({@link signAndVerifyLineage}).
 */
export async function runLoad(options: LoadRunOptions): Promise<LoadRunResult> {
  const wallStart = performance.now();
  const voicemails = await loadVoicemails(options.voicemails);
  const clock = VirtualClock.start();
  const virtualStart = Date.now();
  let pipeline: LoadPipeline | undefined;
  try {
    return await clock
      .drive(
        (async () => {
          pipeline = await startLoadPipeline(options.quotas);
          const rate = new StartRate(options.quotas.startExecution);
          const began = Date.now();
          const uploads = new Limit(UPLOAD_CONCURRENCY);
          const outcomes = await Promise.all(
            voicemails.map(async (voicemail, index) => {
              const at = arrivalOffsetMs(options.arrival, index);
              if (at > 0) await new Promise((resolve) => setTimeout(resolve, at - (Date.now() - began)));
              const outcome = await runVoicemail(pipeline as LoadPipeline, rate, uploads, voicemail, began);
              options.onOutcome?.(outcome, Date.now() - began);
              return outcome;
            }),
          );
          const reported = new Set<string>();
          await mapLimit(outcomes, 64, async ({ jobId }) => {
            if (await (pipeline as LoadPipeline).store.head(VOICEMAIL_WORKFLOW.reportKey(jobId)))
              reported.add(jobId);
          });
          const p = pipeline as LoadPipeline;
          return {
            outcomes,
            quotas: options.quotas,
            arrival: options.arrival,
            reported,
            transcribeUse: p.transcribe.quotaUse(),
            transcribeRequests: { ...p.transcribe.requests() },
            sonicUse: p.sonic.capacityUse(),
            sonicAudioSeconds: p.sonicAudioSeconds(),
            lambdaUse: p.gates.use(),
            startUse: rate.use(),
            ...(p.bedrock ? { bedrockUse: p.bedrock.use() } : {}),
            eventDeliveries: p.eventDeliveries(),
            clock: clock.stats(),
            wallMs: 0,
            virtualStart: began,
          };
        })(),
      )
      .then(async (result) => {
        // Verifying hashes on worker threads, which the clock cannot see as pending I/O: it runs
        // on real time, the digest ending when the run ended in simulated time.
        const ended = new Date(Date.now());
        clock.stop();
        options.onLineageCheck?.();
        const lineage = await signAndVerifyLineage((pipeline as LoadPipeline).store, ended);
        return { ...result, lineage, wallMs: performance.now() - wallStart, virtualStart };
      });
  } finally {
    const p = pipeline as LoadPipeline | undefined;
    clock.stop();
    await p?.close();
  }
}

/** When the `index`th voicemail arrives, in virtual ms from the start: 0 in a burst. */
function arrivalOffsetMs(arrival: Arrival, index: number): number {
  return arrival.kind === "burst" ? 0 : (index * 60_000) / arrival.perMinute;
}

/** At most `size` tasks at once (real I/O's concurrency, which takes no virtual time). */
class Limit {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active += 1;
    try {
      return await task();
    } finally {
      this.#active -= 1;
      this.#waiting.shift()?.();
    }
  }
}

/**
 * One voicemail: uploaded, its "Object Created" event matched against the voicemail rule, its
 * execution started through the StartExecution bucket (EventBridge retrying a throttled start),
 * and awaited.
 */
async function runVoicemail(
  pipeline: LoadPipeline,
  rate: StartRate,
  uploads: Limit,
  voicemail: LoadVoicemail,
  began: number,
): Promise<VoicemailOutcome> {
  const stored = await uploads.run(() =>
    pipeline.store.put(voicemail.key, voicemail.bytes, { contentType: "audio/wav" }),
  );
  const uploadedAt = Date.now() - began;
  const event = objectCreatedEvent(pipeline.store.bucket, stored, new Date());
  if (!pipeline.matchesRule(event))
    throw new Error(`${voicemail.key}: the voicemail rule does not match its event`);
  const jobId = VOICEMAIL_WORKFLOW.jobIdFor(sourceIdentityOf(ObjectCreatedEvent.parse(event)));
  const base = { key: voicemail.key, jobId, uploadedAt, audioMs: voicemail.audioMs };
  let execution: ReturnType<LoadPipeline["machine"]["start"]> | undefined;
  let startedAt = 0;
  const delivery = await deliverWithRetries(
    async () => {
      rate.take();
      startedAt = Date.now() - began;
      pipeline.jobsInFlight.enter();
      execution = pipeline.machine.start(event).finally(() => pipeline.jobsInFlight.leave());
    },
    (error) => error instanceof StartExecutionThrottled,
  );
  if (!execution) return { ...base, status: "LOST", startAttempts: delivery.attempts };
  const result = await execution;
  const ended = { ...base, startedAt, endedAt: Date.now() - began, startAttempts: delivery.attempts };
  if (result.status === "SUCCEEDED") {
    const duplicate = DuplicateDelivery.safeParse(result.output).success;
    return { ...ended, status: duplicate ? "DUPLICATE" : "SUCCEEDED" };
  }
  if (result.status === "FAILED") {
    return { ...ended, status: "FAILED", error: { state: result.error, cause: causeName(result.cause) } };
  }
  throw new Error(`${result.executionArn} was aborted`);
}

/** The error name a Fail state's cause starts with (`TranscriptionThrottled: ...`), or the cause itself. */
function causeName(cause: string): string {
  return /^([A-Za-z.]+)(:|$)/.exec(cause)?.[1] ?? cause.slice(0, 80);
}
