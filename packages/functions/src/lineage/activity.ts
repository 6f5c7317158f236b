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
  type StreamDelivery,
  type Timing,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import type { StageDependencies } from "../dependencies";
import { addActivityMetrics } from "../metrics/activity-metrics";
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
 * The attempt number counts the stage's earlier records, so retries by either engine are visible.
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
    const result = await run(activity);
    await write("succeeded");
    return result;
  } catch (error) {
    await write("failed", error);
    throw error;
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
