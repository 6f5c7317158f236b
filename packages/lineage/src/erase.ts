import { randomUUID } from "node:crypto";
import type { ErasedArtifact, ErasureRecord, ObjectStore, ServiceJob } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { impact } from "./impact";
import type { LineageGraph } from "./lineage-graph";

/** What an erasure did. */
export interface ErasureResult {
  erasureId: string;
  sourceKey: string;
  /** Erasure records written, one per job. */
  records: string[];
  /** Objects deleted (or already gone), the source and everything derived from it. */
  erased: ErasedArtifact[];
  /** Jobs already erased before: left as they were. */
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
 * Deletes a source and every artifact derived from it, and the managed-service jobs of its chain
 * (a Transcribe job, through `deleteServiceJob`), and leaves one erasure record per job
 * (`erasures/<jobId>.json`: kinds, keys, hashes and sizes, never content). Each record is written
 * before its job's objects are deleted, so an interrupted erasure shows in `verify` as
 * `erasure-incomplete` rather than as a broken chain; running it again finishes it. Activity
 * records are kept: they hold pointers and hashes, and are the audit trail of what was erased.
 *
 * @example
 * const result = await erase(store, graph, "incoming/voicemail/billing.wav");
 */
export async function erase(
  store: ObjectStore,
  graph: LineageGraph,
  name: string,
  options: { now?: () => Date; deleteServiceJob?: ServiceJobDeleter } = {},
): Promise<ErasureResult> {
  const now = options.now ?? (() => new Date());
  const reach = impact(graph, name);
  const erasureId = randomUUID();
  const result: ErasureResult = {
    erasureId,
    sourceKey: reach.source.key,
    records: [],
    erased: [],
    alreadyErased: [],
    serviceJobs: [],
  };
  for (const jobId of reach.jobs) {
    const previous = graph.erasures.get(jobId);
    if (previous) {
      // Finish an interrupted erasure: delete whatever it recorded and is still there.
      for (const artifact of previous.erased) await store.delete(artifact.key);
      result.alreadyErased.push(jobId);
      continue;
    }
    const jobArtifacts = [
      reach.source,
      ...reach.artifacts.filter((ref) => graph.writers.get(ref.key)?.some((w) => w.record.jobId === jobId)),
    ];
    const erased = await Promise.all(
      jobArtifacts.map(
        async (ref): Promise<ErasedArtifact> => ({
          kind: ref.kind,
          key: ref.key,
          uri: ref.uri,
          sha256: ref.sha256,
          bytes: ref.bytes,
          existed: (await store.head(ref.key)) !== undefined,
        }),
      ),
    );
    const serviceJobs = await deleteServiceJobs(graph, jobId, options.deleteServiceJob);
    const record: ErasureRecord = {
      schemaVersion: 1,
      erasureId,
      jobId,
      erasedAt: now().toISOString(),
      sourceKey: reach.source.key,
      erased,
      keptRecords: (graph.jobs.get(jobId) ?? []).map((activity) => activity.key),
      ...(serviceJobs.length > 0 ? { serviceJobs } : {}),
    };
    const key = keys.erasure(jobId);
    await store.put(key, `${JSON.stringify(record, null, 2)}\n`, { contentType: "application/json" });
    for (const artifact of erased) await store.delete(artifact.key);
    result.records.push(key);
    result.serviceJobs.push(...serviceJobs);
    result.erased.push(
      ...erased.filter((artifact) => !result.erased.some((seen) => seen.key === artifact.key)),
    );
  }
  return result;
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
