import { randomUUID } from "node:crypto";
import type { ActivityRecord, ArtifactRef, Boundary, ObjectStore, Processor, Timing } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import type { StageDependencies } from "../dependencies";
import { recordedError } from "../recorded-error";

/** What an attempt has read, written and used so far. */
export interface Activity {
  readonly inputs: ArtifactRef[];
  readonly outputs: ArtifactRef[];
  readonly processors: Processor[];
  readonly timings: Timing[];
}

interface ActivityScope {
  store: ObjectStore;
  jobId: string;
  stage: string;
  compute: Boundary;
  inputs: ArtifactRef[];
  now: () => Date;
}

/**
 * Runs one stage attempt and writes its immutable activity record under `lineage/<jobId>/`,
 * whether the attempt succeeds or fails (the error is rethrown after the record is written).
 * The attempt number counts the stage's earlier records, so retries by either engine are visible.
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
  const activity: Activity = { inputs: [...scope.inputs], outputs: [], processors: [], timings: [] };
  const startedAt = scope.now().toISOString();
  const attempt =
    (await scope.store.list(`${keys.lineagePrefix(scope.jobId)}${scope.stage.toLowerCase()}-`)).length + 1;
  const write = (outcome: ActivityRecord["outcome"], error?: unknown) => {
    const record: ActivityRecord = {
      schemaVersion: 1,
      activityId: randomUUID(),
      jobId: scope.jobId,
      stage: scope.stage,
      attempt,
      startedAt,
      endedAt: scope.now().toISOString(),
      outcome,
      compute: scope.compute,
      ...activity,
      ...(error === undefined ? {} : { error: recordedError(error) }),
    };
    return scope.store.put(
      keys.lineage(scope.jobId, scope.stage, attempt),
      `${JSON.stringify(record, null, 2)}\n`,
      {
        contentType: "application/json",
      },
    );
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
  return { store: deps.store, jobId, stage, compute: deps.compute, now: deps.now ?? (() => new Date()) };
}
