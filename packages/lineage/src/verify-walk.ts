import { type ArtifactRef, type ErasedArtifact, type ErasureRecord, SOURCE_KINDS } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import type { LineageGraph } from "./lineage-graph";
import type { StoredActivity } from "./lineage-snapshot";
import { checkChain } from "./record-integrity";
import type { NamedArtifact } from "./verify-artifacts";
import { issue, type VerifyIssue } from "./verify-issues";

/** What the records alone show, and what of the store to read. */
export interface Walk {
  /** Chain and link findings. */
  issues: VerifyIssue[];
  /** Jobs whose chain was erased, with the erasure's id. */
  erased: Array<{ jobId: string; erasureId: string; erasedAt: string }>;
  erasedChecks: Array<{ erasure: ErasureRecord; artifact: ErasedArtifact }>;
  /** Per key, what its latest successful producer wrote. */
  outputs: NamedArtifact[];
  /** Each job's own source, by job: two jobs may name one key (different uploads to it). */
  sources: NamedArtifact[];
  linksChecked: number;
}

/**
 * Walks the jobs' records: each job's chain, each input of each successful attempt against what
 * its producer wrote; and collects the artifacts to re-hash and the erased objects to look for.
 *
 * @example
 * const walked = walkJobs(graph, [...graph.jobs.keys()]);
 */
export function walkJobs(graph: LineageGraph, jobIds: string[]): Walk {
  const walk: Walk = { issues: [], erased: [], erasedChecks: [], outputs: [], sources: [], linksChecked: 0 };
  const outputs = new Map<string, NamedArtifact>();
  const sources = new Map<string, NamedArtifact>();
  for (const jobId of jobIds) {
    // Erasure keeps the records, so an erased job's chain is checked too.
    walk.issues.push(...checkChain(jobId, graph.jobs.get(jobId) ?? []));
    const erasure = graph.erasures.get(jobId);
    if (erasure) {
      walk.erased.push({ jobId, erasureId: erasure.erasureId, erasedAt: erasure.erasedAt });
      for (const artifact of erasure.erased) walk.erasedChecks.push({ erasure, artifact });
      continue;
    }
    const activities = graph.jobs.get(jobId) ?? [];
    if (activities.length === 0) {
      walk.issues.push(
        issue("broken-chain", keys.lineagePrefix(jobId), jobId, "the job has no activity records"),
      );
      continue;
    }
    for (const activity of activities) {
      if (activity.record.outcome !== "succeeded") continue;
      for (const input of activity.record.inputs) {
        walk.linksChecked++;
        const found = checkLink(graph, activity, input);
        if (found) walk.issues.push(found);
        else if (SOURCE_KINDS.includes(input.kind))
          sources.set(`${jobId}\u0000${input.key}`, { ref: input, jobId });
      }
      for (const output of activity.record.outputs) {
        if (graph.producers.get(output.key)?.activity === activity)
          outputs.set(output.key, { ref: output, jobId });
      }
    }
  }
  walk.outputs = [...outputs.values()];
  walk.sources = [...sources.values()];
  return walk;
}

/** An input of a successful attempt: a source, or exactly what the attempt that produced it wrote. */
function checkLink(
  graph: LineageGraph,
  activity: StoredActivity,
  input: ArtifactRef,
): VerifyIssue | undefined {
  const { record } = activity;
  const step = `${record.stage} attempt ${record.attempt} (${activity.key})`;
  const producer = graph.producers.get(input.key);
  if (!producer) {
    if (SOURCE_KINDS.includes(input.kind)) return undefined;
    return issue(
      "broken-chain",
      input.key,
      record.jobId,
      `${step} read this ${input.kind}, but no successful attempt wrote it`,
    );
  }
  if (producer.ref.sha256 !== input.sha256) {
    return issue(
      "broken-chain",
      input.key,
      record.jobId,
      `${step} read sha256 ${input.sha256}, but ${producer.activity.record.stage} wrote ${producer.ref.sha256}`,
    );
  }
  return undefined;
}
