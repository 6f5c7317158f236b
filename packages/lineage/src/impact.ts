import type { ArtifactRef } from "@voxtrail/core";
import { ArtifactNotInLineage } from "./errors";
import type { LineageGraph } from "./lineage-graph";

/** Everything derived from one artifact: what an erasure of it must reach. */
export interface Impact {
  /** The artifact asked about, as last recorded. */
  source: ArtifactRef;
  /** Jobs that read it or anything derived from it. */
  jobs: string[];
  /** Derived artifacts, in the order the pipeline made them (latest version of each key). */
  artifacts: ArtifactRef[];
  /** Keys of the activity records on the way (kept by an erasure as the audit trail). */
  records: string[];
}

/**
 * Every artifact derived, directly or through other artifacts, from `name` (a key, uri or hash):
 * the closure over "read by an activity that wrote". Attempts that failed count too, since a
 * failed attempt may have written part of its output.
 *
 * @example
 * const { artifacts } = impact(graph, "incoming/voicemail/billing.wav");
 */
export function impact(graph: LineageGraph, name: string): Impact {
  const key = graph.resolve(name);
  const source = key === undefined ? undefined : graph.artifact(key);
  if (key === undefined || !source) {
    throw new ArtifactNotInLineage(`no lineage record names the artifact ${JSON.stringify(name)}`);
  }
  const jobs = new Set<string>();
  const records = new Set<string>();
  const derived = new Set<string>();
  const queue = [key];
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    for (const reader of graph.readers.get(current) ?? []) {
      jobs.add(reader.record.jobId);
      records.add(reader.key);
      for (const output of reader.record.outputs) {
        if (output.key === key || derived.has(output.key)) continue;
        derived.add(output.key);
        queue.push(output.key);
      }
    }
  }
  const artifacts = [...derived].map(
    (derivedKey) =>
      graph.producers.get(derivedKey)?.ref ??
      (graph.writers
        .get(derivedKey)
        ?.at(-1)
        ?.record.outputs.find((ref) => ref.key === derivedKey) as ArtifactRef),
  );
  return { source, jobs: [...jobs], artifacts, records: [...records] };
}
