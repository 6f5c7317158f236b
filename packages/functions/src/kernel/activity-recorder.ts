import { createHash, randomUUID } from "node:crypto";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import {
  ACTIVITY_RECORD_VERSION,
  type ActivityRecord,
  type ArtifactRedaction,
  type ArtifactRef,
  type Boundary,
  type ObjectStore,
  POINTERS_ONLY,
  type PolicyDecision,
  type Processor,
  type SampleConditions,
  type SdkCall,
  type ServiceJob,
  type StreamDelivery,
  type Timing,
  VoxtrailError,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { writeLineageSummary } from "../lineage/lineage-summary";
import { addActivityMetrics } from "../metrics/activity-metrics";
import { recordedError } from "../recorded-error";

/** Attempt numbers an attempt tries for its record, from the one it opened with, before giving up. */
const MAX_NUMBERING_TRIES = 20;

/**
 * Every attempt number an attempt tried for its record was taken by another attempt of the same
 * step: far more attempts ran at once than any retry policy makes. Not retried.
 */
export class ActivityRecordNumbersTaken extends VoxtrailError {
  readonly retryable = false;
}

/** What an attempt has read, written and used so far. */
export interface Activity {
  readonly inputs: ArtifactRef[];
  readonly outputs: ArtifactRef[];
  readonly processors: Processor[];
  readonly timings: Timing[];
  /** Figures only the stage knows: the audio duration, the open streams, the stream's delivery. */
  readonly measures: { audioMs?: number; activeStreams?: number; delivery?: StreamDelivery };
  /** The boundary policy's decision, set by `enforceBoundaries` before any provider is called. */
  policy?: PolicyDecision;
  /** The managed-service job the attempt ran (a transcription job), when it ran one. */
  serviceJob?: ServiceJob;
  /** The call's language, where the stage names its languages (call-language.ts). */
  language?: string;
  /** The outputs the attempt wrote redacted (docs/redaction.md). */
  redactions?: ArtifactRedaction[];
}

/** Where and for what an attempt is recorded. */
export interface AttemptScope {
  store: ObjectStore;
  jobId: string;
  /** The stage's name: the metrics' `stage` dimension. */
  stage: string;
  /** The name its records go under: the stage's, or one per prompt (`SynthesizePrompt-<hash>`). */
  recordAs: string;
  /** The steps whose last attempt a first attempt follows, nearest first (see `StageDefinition.follows`). */
  follows: readonly string[];
  compute: Boundary;
  inputs: ArtifactRef[];
  now: () => Date;
  jobsInFlight?: (() => number) | undefined;
  metrics?: Metrics | undefined;
  /** The job ends with this attempt: write its lineage summary after the record. */
  endsJob?: boolean | undefined;
  /**
   * When the work this attempt completes began, if earlier (ISO): the record's `startedAt`, though
   * never before the record it follows starts (an attempt of the same work that failed after the
   * work began, e.g. a transcription job's wait), so the job's chain stays in start order.
   */
  startedAt?: string | undefined;
  /** Write the record only if the attempt fails (a step whose success a later attempt records). */
  failuresOnly?: boolean | undefined;
}

/**
 * One stage attempt's immutable activity record, written once under `lineage/<jobId>/` whether
 * the attempt succeeds or fails, and never over another record: it is created only if absent, and
 * when an attempt that opened at the same time took its number, it takes the next one (linked to
 * the record before it), up to {@link MAX_NUMBERING_TRIES} numbers, then
 * `ActivityRecordNumbersTaken`. The attempt number counts the stage's earlier records, so retries
 * by either engine are visible; the record lists the AWS SDK calls the attempt made with the SDK's
 * own retries (`sdkCalls`, collected by the kernel), and the conditions its timings were measured
 * under (first processor, input bytes, jobs in flight when it started, the stage's measures). Its
 * figures go to `metrics` when set, with the stage's name, never a row's, as the dimension. When
 * the attempt `endsJob` (Finalize, the failure recorder), the job's lineage summary is written
 * after the record, so it copies every record including this one.
 *
 * @example
 * const recorder = await ActivityRecorder.open({ store, jobId, stage: "Transcribe", recordAs: "Transcribe", compute, inputs: [audio], now });
 * recorder.activity.outputs.push(transcript);
 * await recorder.record("succeeded");
 */
export class ActivityRecorder {
  readonly activity: Activity;
  /** The SDK calls the attempt made, filled while the kernel collects them. */
  readonly sdkCalls: SdkCall[] = [];
  #recorded = false;

  private constructor(
    private readonly scope: AttemptScope,
    private readonly attempt: number,
    private readonly startedAt: string,
    private readonly jobsInFlight: number | undefined,
    /** The key of the record this one follows in the job's chain, if any. */
    private readonly previousKey: string | undefined,
  ) {
    this.activity = { inputs: [...scope.inputs], outputs: [], processors: [], timings: [], measures: {} };
  }

  /**
   * Numbers the attempt (after the stage's earlier records), finds the record it follows in the
   * job's chain (its previous attempt, else the last attempt of the nearest step in `follows`
   * that has one) and starts its clock.
   */
  static async open(scope: AttemptScope): Promise<ActivityRecorder> {
    const startedAt = scope.startedAt ?? scope.now().toISOString();
    const jobsInFlight = scope.jobsInFlight?.();
    // Listed at once, not one after another: a first attempt, the usual one, needs two lists.
    const [earlier = [], ...followed] = await Promise.all(
      [scope.recordAs, ...scope.follows].map((step) => recordsOf(scope.store, scope.jobId, step)),
    );
    const previousKey = [earlier, ...followed]
      .map((records) => records.at(-1))
      .find((key) => key !== undefined);
    return new ActivityRecorder(scope, earlier.length + 1, startedAt, jobsInFlight, previousKey);
  }

  /** Writes the record (the first call only: an attempt has one outcome) and adds its metrics. */
  async record(outcome: ActivityRecord["outcome"], error?: unknown): Promise<void> {
    if (this.#recorded) return;
    this.#recorded = true;
    if (outcome === "succeeded" && this.scope.failuresOnly) return;
    const { scope } = this;
    const { measures, ...recorded } = this.activity;
    const { delivery, ...stageConditions } = measures;
    const conditions: SampleConditions = {
      provider: recorded.processors[0]?.provider ?? "unknown",
      model: recorded.processors[0]?.model ?? "unknown",
      version: recorded.processors[0]?.version ?? "unknown",
      payloadBytes: recorded.inputs.reduce((sum, input) => sum + input.bytes, 0),
      ...(this.jobsInFlight === undefined ? {} : { jobsInFlight: this.jobsInFlight }),
      ...stageConditions,
    };
    const activityId = randomUUID();
    const endedAt = scope.now().toISOString();
    let attempt = this.attempt;
    let previousKey = this.previousKey;
    for (let tries = 1; ; tries++) {
      // Only a backdated attempt needs the previous record's start: the others only hash it.
      const previous =
        previousKey === undefined
          ? undefined
          : await readPrevious(scope.store, previousKey, scope.startedAt !== undefined);
      const record: ActivityRecord = {
        schemaVersion: ACTIVITY_RECORD_VERSION,
        activityId,
        jobId: scope.jobId,
        stage: scope.recordAs,
        attempt,
        startedAt:
          previous?.startedAt === undefined ? this.startedAt : later(this.startedAt, previous.startedAt),
        endedAt,
        outcome,
        compute: scope.compute,
        ...recorded,
        conditions,
        ...(delivery ? { delivery } : {}),
        sideChannels: POINTERS_ONLY,
        ...(this.sdkCalls.length > 0 ? { sdkCalls: [...this.sdkCalls] } : {}),
        ...(error === undefined ? {} : { error: recordedError(error) }),
        ...(previous ? { previousRecord: previous.ref } : {}),
      };
      const key = keys.lineage(scope.jobId, scope.recordAs, attempt);
      const written = await scope.store.putIfAbsent(key, `${JSON.stringify(record, null, 2)}\n`, {
        contentType: "application/json",
      });
      if (written) {
        if (scope.metrics) addActivityMetrics(scope.metrics, scope.stage, record);
        break;
      }
      if (tries === MAX_NUMBERING_TRIES) {
        throw new ActivityRecordNumbersTaken(
          `attempts ${this.attempt} to ${attempt} of ${scope.recordAs} were all recorded by other attempts first`,
        );
      }
      // An attempt that opened at the same time took this number: the next one follows its record.
      previousKey = key;
      attempt += 1;
    }
    if (scope.endsJob) await writeLineageSummary(scope.store, scope.jobId, scope.now());
  }
}

/** The keys of a step's records in the job, in attempt order (`<step>-01.json`, `-02`, ...). */
function recordsOf(store: ObjectStore, jobId: string, step: string): Promise<string[]> {
  return store.list(`${keys.lineagePrefix(jobId)}${step.toLowerCase()}-`);
}

/**
 * A record's key with the sha256 of its bytes as stored (what the next record's chain link names),
 * and, `withStart`, when it started, if its bytes say (a record that is not JSON is linked all the
 * same: verify is what names it).
 */
async function readPrevious(
  store: ObjectStore,
  key: string,
  withStart: boolean,
): Promise<{ ref: { key: string; sha256: string }; startedAt: string | undefined }> {
  const bytes = await store.getBytes(key);
  let startedAt: unknown;
  try {
    startedAt = withStart
      ? (JSON.parse(bytes.toString("utf8")) as { startedAt?: unknown }).startedAt
      : undefined;
  } catch {
    startedAt = undefined;
  }
  return {
    ref: { key, sha256: createHash("sha256").update(bytes).digest("hex") },
    startedAt: typeof startedAt === "string" ? startedAt : undefined,
  };
}

/** The later of two ISO times (`a` when `b` is missing). */
function later(a: string, b: string | undefined): string {
  return b !== undefined && Date.parse(b) > Date.parse(a) ? b : a;
}
