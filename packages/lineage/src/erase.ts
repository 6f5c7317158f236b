import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type ArtifactRef,
  type ErasedArtifact,
  type ErasureRecord,
  type ExecutionLiveness,
  JobClaim,
  type ObjectStore,
  readJson,
  type ServiceJob,
  SOURCE_KINDS,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { deleteErased, ownKeyPrefixes } from "./erased-objects";
import { erasureScope } from "./erasure-scope";
import { ErasureWaitedTooLong } from "./errors";
import type { LineageGraph } from "./lineage-graph";

/** What an erasure did. */
export interface ErasureResult {
  erasureId: string;
  /** The name the erasure was asked for: a key, uri or sha256. */
  named: string;
  /** The jobs whose chains it reached (see `erasureScope`). */
  jobs: string[];
  /** Erasure records written, one per job. */
  records: string[];
  /** Objects deleted (or already gone): each job's source version and everything it wrote. */
  erased: ErasedArtifact[];
  /** Jobs already erased before: what their records list and is still there is deleted again. */
  alreadyErased: string[];
  /** The chain's managed-service jobs, and whether each was deleted. */
  serviceJobs: NonNullable<ErasureRecord["serviceJobs"]>;
}

/**
 * Deletes a managed-service job (Amazon Transcribe's `DeleteTranscriptionJob`): `already-gone`
 * when the service no longer knows it. Without one (a local store, whose stand-in jobs end with
 * the run), the jobs are listed as `not-reachable`.
 */
export type ServiceJobDeleter = (job: ServiceJob) => Promise<"deleted" | "already-gone">;

/**
 * Erases whole chains: for each job `erasureScope` finds for `name`, its own source version,
 * every version of every artifact it wrote, the side files under its artifact prefix, and its
 * managed-service jobs (a Transcribe job, through `deleteServiceJob`). Other uploads to the same
 * key are other callers' jobs and are left alone. Each job gets one erasure record
 * (`erasures/<jobId>.json`: kinds, keys, hashes, sizes and version ids, never content), written
 * before its objects are deleted, so an interrupted erasure shows in `verify` as
 * `erasure-incomplete`; running it again finishes it. Activity records are kept: they hold
 * pointers and hashes, and are the audit trail of what was erased.
 *
 * @example
 * const result = await erase(store, graph, "artifacts/vm-0123456789abcdef0123/transcript.json");
 * result.jobs; // ["vm-0123456789abcdef0123"]: its source and every artifact are gone
 */
export async function erase(
  store: ObjectStore,
  graph: LineageGraph,
  name: string,
  options: EraseOptions = {},
): Promise<ErasureResult> {
  const now = options.now ?? (() => new Date());
  const jobs = erasureScope(graph, name);
  if (options.liveness) await waitForJobsToEnd(store, jobs, options.liveness, options.waiting);
  const erasureId = randomUUID();
  const result: ErasureResult = {
    erasureId,
    named: name,
    jobs,
    records: [],
    erased: [],
    alreadyErased: [],
    serviceJobs: [],
  };
  for (const jobId of jobs) {
    const previous = graph.erasures.get(jobId);
    const { sourceKey, erased } = await chainOf(store, graph, jobId);
    if (previous) {
      await deleteErased(store, previous.erased);
      // Written since that erasure (by a run it did not wait for): erased again, and recorded.
      if (!erased.some((artifact) => artifact.existed)) {
        result.alreadyErased.push(jobId);
        continue;
      }
    }
    const serviceJobs = await deleteServiceJobs(graph, jobId, options.deleteServiceJob);
    const record: ErasureRecord = {
      schemaVersion: 1,
      erasureId,
      jobId,
      erasedAt: now().toISOString(),
      sourceKey,
      erased,
      keptRecords: (graph.jobs.get(jobId) ?? []).map((activity) => activity.key),
      ...(serviceJobs.length > 0 ? { serviceJobs } : {}),
    };
    const key = keys.erasure(jobId);
    await store.put(key, `${JSON.stringify(record, null, 2)}\n`, { contentType: "application/json" });
    await deleteErased(store, erased);
    result.records.push(key);
    result.serviceJobs.push(...serviceJobs);
    result.erased.push(...erased);
  }
  return result;
}

/** Options of {@link erase}. */
export interface EraseOptions {
  now?: () => Date;
  deleteServiceJob?: ServiceJobDeleter;
  /**
   * Whether a job's claimed execution still runs: with it, the erasure waits for every job in its
   * scope to end before it deletes anything, so a running job cannot write after it.
   */
  liveness?: ExecutionLiveness;
  /**
   * Told once per job the erasure waits for, how to give up early, and how often to ask again
   * (default {@link WAIT_POLL_MS}; tests that run jobs of a second ask more often).
   */
  waiting?: { onWait?: (jobId: string, executionId: string) => void; timeoutMs?: number; pollMs?: number };
}

/** How long an erasure waits for running jobs by default: an execution's own limit is about this. */
const DEFAULT_WAIT_MS = 2 * 60 * 60 * 1000;
/** How often it looks again. */
const WAIT_POLL_MS = 500;

/**
 * Waits until no job of `jobs` has a claimed execution that still runs (its latest claim's),
 * telling `onWait` once per job; past `timeoutMs`, `ErasureWaitedTooLong` naming the jobs, and
 * nothing is erased.
 */
async function waitForJobsToEnd(
  store: ObjectStore,
  jobs: string[],
  liveness: ExecutionLiveness,
  waiting: EraseOptions["waiting"] = {},
): Promise<void> {
  const deadline = Date.now() + (waiting.timeoutMs ?? DEFAULT_WAIT_MS);
  const told = new Set<string>();
  for (;;) {
    const running: string[] = [];
    for (const jobId of jobs) {
      const claim = await latestClaim(store, jobId);
      if (claim && (await liveness.isRunning(claim.executionId))) {
        running.push(jobId);
        if (!told.has(jobId)) waiting.onWait?.(jobId, claim.executionId);
        told.add(jobId);
      }
    }
    if (running.length === 0) return;
    if (Date.now() >= deadline) {
      throw new ErasureWaitedTooLong(
        `job ${running.join(", ")} still running after the erasure waited ${Math.round((waiting.timeoutMs ?? DEFAULT_WAIT_MS) / 1000)} s: erase again once it ends`,
      );
    }
    await sleep(waiting.pollMs ?? WAIT_POLL_MS);
  }
}

/** The job's latest claim, naming the execution that runs (or ran) its latest run. */
async function latestClaim(store: ObjectStore, jobId: string): Promise<JobClaim | undefined> {
  const latest = (await store.list(keys.claimPrefix(jobId))).filter((key) => key.endsWith(".json")).at(-1);
  return latest === undefined ? undefined : readJson(store, latest, JobClaim);
}

/** A job's chain as its erasure record lists it: its source versions, what it wrote, side files. */
async function chainOf(
  store: ObjectStore,
  graph: LineageGraph,
  jobId: string,
): Promise<{ sourceKey: string; erased: ErasedArtifact[] }> {
  const sources = new Map<string, ArtifactRef & { versionId?: string }>();
  const written = new Map<string, ArtifactRef>();
  for (const { record } of graph.jobs.get(jobId) ?? []) {
    for (const input of record.inputs) {
      if (SOURCE_KINDS.includes(input.kind)) sources.set(`${input.key}\u0000${sourceVersion(input)}`, input);
    }
    for (const output of record.outputs) written.set(output.key, output);
  }
  // Whatever else is under the job's own keys, recorded or not, or written after `graph` was read.
  const folders = await Promise.all(ownKeyPrefixes(jobId).map((prefix) => store.list(prefix)));
  const sideFiles = folders.flat().filter((key) => !written.has(key));
  const erased = await Promise.all([
    ...[...sources.values()].map(async (ref): Promise<ErasedArtifact> => {
      const versionId = sourceVersion(ref);
      const current = versionId ? await store.head(ref.key, { versionId }) : await store.head(ref.key);
      return {
        ...described(ref),
        existed: current !== undefined && (versionId !== undefined || current.sha256 === ref.sha256),
        ...(versionId ? { versionIds: [versionId] } : {}),
      };
    }),
    ...[...written.values()].map(async (ref) => everyVersion(store, described(ref))),
    ...sideFiles.map(async (key) => {
      const head = await store.head(key);
      const side = { kind: "unrecorded" as const, key, uri: store.uri(key), sha256: head?.sha256 ?? "" };
      return everyVersion(store, { ...side, bytes: head?.bytes ?? 0 });
    }),
  ]);
  return { sourceKey: [...sources.values()][0]?.key ?? "", erased };
}

/** A derived key belongs to its job alone: every version of it goes. */
async function everyVersion(
  store: ObjectStore,
  artifact: Omit<ErasedArtifact, "existed" | "versionIds">,
): Promise<ErasedArtifact> {
  const versionIds = (await store.versions(artifact.key)).map((version) => version.versionId);
  return { ...artifact, existed: versionIds.length > 0, versionIds };
}

function described(ref: ArtifactRef): Omit<ErasedArtifact, "existed" | "versionIds"> {
  return { kind: ref.kind, key: ref.key, uri: ref.uri, sha256: ref.sha256, bytes: ref.bytes };
}

function sourceVersion(ref: ArtifactRef): string | undefined {
  return "versionId" in ref && typeof ref.versionId === "string" ? ref.versionId : undefined;
}

/**
 * Deletes the managed-service jobs the job's activity records name (first, so the record says how
 * it went); with no deleter, lists them as `not-reachable`.
 */
async function deleteServiceJobs(
  graph: LineageGraph,
  jobId: string,
  deleter: ServiceJobDeleter | undefined,
): Promise<NonNullable<ErasureRecord["serviceJobs"]>> {
  const named = new Map<string, ServiceJob>();
  for (const { record } of graph.jobs.get(jobId) ?? []) {
    if (record.serviceJob)
      named.set(`${record.serviceJob.service}/${record.serviceJob.name}`, record.serviceJob);
  }
  const outcomes: NonNullable<ErasureRecord["serviceJobs"]> = [];
  for (const job of named.values()) {
    const deleted = deleter ? await deleter(job) : "not-reachable";
    outcomes.push({ service: job.service, name: job.name, deleted });
  }
  return outcomes;
}
