import { randomUUID } from "node:crypto";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import {
  ACTIVITY_RECORD_VERSION,
  type ActivityRecord,
  type ArtifactRef,
  type Boundary,
  type ObjectStore,
  POINTERS_ONLY,
  type PolicyDecision,
  type Processor,
  type SampleConditions,
  type SdkCall,
  StageTimedOut,
  type StreamDelivery,
  type Timing,
} from "@voxtrail/core";
import { collectSdkCalls } from "@voxtrail/providers";
import { keys } from "@voxtrail/workflow";
import type { StageDependencies } from "../dependencies";
import { addActivityMetrics } from "../metrics/activity-metrics";
import { invocationDeadline } from "../middleware/invocation-deadline";
import { recordedError } from "../recorded-error";
import { writeLineageSummary } from "./lineage-summary";

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
}

interface ActivityScope {
  store: ObjectStore;
  jobId: string;
  stage: string;
  compute: Boundary;
  inputs: ArtifactRef[];
  now: () => Date;
  jobsInFlight?: (() => number) | undefined;
  metrics?: Metrics | undefined;
  /** The job ends with this attempt: write its lineage summary after the record. */
  endsJob?: boolean;
}

/**
 * Runs one stage attempt and writes its immutable activity record under `lineage/<jobId>/`,
 * whether the attempt succeeds or fails (the error is rethrown after the record is written).
 * The attempt number counts the stage's earlier records, so retries by either engine are visible;
 * the record also lists the AWS SDK calls the attempt made with the SDK's own retries (`sdkCalls`).
 * The record carries the conditions its timings were measured under (first processor, input bytes,
 * jobs in flight when it started, the stage's measures); its figures go to `metrics` when set.
 * When the attempt `endsJob` (Finalize, the failure recorder), the job's lineage summary is written
 * after the record, so it copies every record including this one.
 *
 * @example
 * const ref = await withActivity({ store, jobId, stage: "Transcribe", compute, inputs: [audio], now }, async (activity) => {
 *   activity.processors.push(transcriber.processor);
 *   const out = await putJsonArtifact(store, "transcript", key, transcript);
 *   activity.outputs.push(out);
 *   return out;
 * });
 */
export async function withActivity<T>(
  scope: ActivityScope,
  run: (activity: Activity) => Promise<T>,
): Promise<T> {
  const activity: Activity = {
    inputs: [...scope.inputs],
    outputs: [],
    processors: [],
    timings: [],
    measures: {},
  };
  const sdkCalls: SdkCall[] = [];
  const startedAt = scope.now().toISOString();
  const jobsInFlight = scope.jobsInFlight?.();
  const attempt =
    (await scope.store.list(`${keys.lineagePrefix(scope.jobId)}${scope.stage.toLowerCase()}-`)).length + 1;
  const write = async (outcome: ActivityRecord["outcome"], error?: unknown) => {
    const { measures, ...recorded } = activity;
    const { delivery, ...stageConditions } = measures;
    const conditions: SampleConditions = {
      provider: recorded.processors[0]?.provider ?? "unknown",
      model: recorded.processors[0]?.model ?? "unknown",
      version: recorded.processors[0]?.version ?? "unknown",
      payloadBytes: recorded.inputs.reduce((sum, input) => sum + input.bytes, 0),
      ...(jobsInFlight === undefined ? {} : { jobsInFlight }),
      ...stageConditions,
    };
    const record: ActivityRecord = {
      schemaVersion: ACTIVITY_RECORD_VERSION,
      activityId: randomUUID(),
      jobId: scope.jobId,
      stage: scope.stage,
      attempt,
      startedAt,
      endedAt: scope.now().toISOString(),
      outcome,
      compute: scope.compute,
      ...recorded,
      conditions,
      ...(delivery ? { delivery } : {}),
      sideChannels: POINTERS_ONLY,
      ...(sdkCalls.length > 0 ? { sdkCalls } : {}),
      ...(error === undefined ? {} : { error: recordedError(error) }),
    };
    if (scope.metrics) addActivityMetrics(scope.metrics, record);
    await scope.store.put(
      keys.lineage(scope.jobId, scope.stage, attempt),
      `${JSON.stringify(record, null, 2)}\n`,
      {
        contentType: "application/json",
      },
    );
    if (scope.endsJob) await writeLineageSummary(scope.store, scope.jobId, scope.now());
  };
  try {
    const result = await beforeDeadline(
      scope.stage,
      collectSdkCalls(sdkCalls, () => run(activity)),
    );
    await write("succeeded");
    return result;
  } catch (error) {
    await write("failed", error);
    throw error;
  }
}

/**
 * How long before the invocation's deadline an attempt that is still running is recorded as
 * timed out: time to write its record before Lambda stops the function (whose timeout is a margin
 * below its Task state's, so this record and `StageTimedOut` come before `States.Timeout`), or,
 * locally, before the same function deadline the local runtime gives the handler.
 */
const RECORD_BEFORE_DEADLINE_MS = 500;

/**
 * `work`'s result, or `StageTimedOut` once the invocation's deadline (less the time to record) has
 * passed. Work that finishes later is not waited for: Lambda stops it; in the local runtime it may
 * still write its outputs, which no succeeded record then names (`lineage verify` reports them
 * until a rerun of the job replaces them).
 */
async function beforeDeadline<T>(stage: string, work: Promise<T>): Promise<T> {
  const deadline = invocationDeadline();
  if (deadline === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeLimit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StageTimedOut(`${stage} ran past its invocation's time limit`)),
      Math.max(0, deadline - RECORD_BEFORE_DEADLINE_MS - Date.now()),
    );
  });
  work.catch(() => undefined); // a late failure has nobody left to tell
  try {
    return await Promise.race([work, timeLimit]);
  } finally {
    clearTimeout(timer);
  }
}

/** The scope of a stage's activity, from the handler's dependencies (inputs are added by the stage). */
export function stageScope(
  deps: StageDependencies,
  jobId: string,
  stage: string,
): Omit<ActivityScope, "inputs"> {
  return {
    store: deps.store,
    jobId,
    stage,
    compute: deps.compute,
    now: deps.now ?? (() => new Date()),
    jobsInFlight: deps.jobsInFlight,
    metrics: deps.metrics,
  };
}
