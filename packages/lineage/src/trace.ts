import {
  type ArtifactRef,
  type Boundary,
  type PolicyDecision,
  type Processor,
  SOURCE_KINDS,
  type Timing,
} from "@voxtrail/core";
import { ArtifactNotInLineage } from "./errors";
import type { LineageGraph } from "./lineage-graph";

/** The activity that produced an artifact, as a trace shows it. */
export interface TraceStep {
  activityId: string;
  /** Key of the activity record. */
  record: string;
  jobId: string;
  stage: string;
  attempt: number;
  outcome: "succeeded" | "failed";
  startedAt: string;
  endedAt: string;
  compute: Boundary;
  processors: Processor[];
  policy?: PolicyDecision;
  timings: Timing[];
}

/** One artifact in a trace and, recursively, the artifacts it was made from. */
export interface TraceNode {
  /** The artifact as the step that used it recorded it (for the root, as its producer wrote it). */
  artifact: ArtifactRef;
  /** `produced` by a recorded activity; the `source` audio; or `no-lineage`: no record produced it. */
  origin: "produced" | "source" | "no-lineage";
  producedBy?: TraceStep;
  /** Already shown higher in the trace: its inputs are not repeated. */
  repeated?: true;
  inputs: TraceNode[];
}

/**
 * The chain from an artifact back to the source audio: each step with its activity, processors
 * (provider, model, version, endpoint), boundary, times and hashes. Throws `ArtifactNotInLineage`
 * when no record names the artifact.
 *
 * @example
 * const graph = LineageGraph.of(await readLineage(store));
 * const tree = trace(graph, "artifacts/vm-0123456789abcdef0123/reply.wav");
 */
export function trace(graph: LineageGraph, name: string): TraceNode {
  const key = graph.resolve(name);
  const artifact = key === undefined ? undefined : graph.artifact(key);
  if (!artifact)
    throw new ArtifactNotInLineage(`no lineage record names the artifact ${JSON.stringify(name)}`);
  return node(graph, artifact, new Set());
}

function node(graph: LineageGraph, artifact: ArtifactRef, shown: Set<string>): TraceNode {
  const production = graph.producers.get(artifact.key);
  const origin = production ? "produced" : SOURCE_KINDS.includes(artifact.kind) ? "source" : "no-lineage";
  if (shown.has(artifact.key)) return { artifact, origin, repeated: true, inputs: [] };
  shown.add(artifact.key);
  if (!production) return { artifact, origin, inputs: [] };
  const { record, key } = production.activity;
  return {
    artifact,
    origin,
    producedBy: {
      activityId: record.activityId,
      record: key,
      jobId: record.jobId,
      stage: record.stage,
      attempt: record.attempt,
      outcome: record.outcome,
      startedAt: record.startedAt,
      endedAt: record.endedAt,
      compute: record.compute,
      processors: record.processors,
      ...(record.policy ? { policy: record.policy } : {}),
      timings: record.timings,
    },
    inputs: record.inputs.map((input) => node(graph, input, shown)),
  };
}

/**
 * The job an artifact name (key or uri) belongs to by the key layout (`artifacts/<jobId>/...`,
 * `reports/<jobId>.json`), so a trace can read that job's records alone; `undefined` for a source,
 * a hash, or anything else, which need the whole lineage.
 */
export function jobIdOfArtifactName(name: string): string | undefined {
  return /(?:^|\/)(?:artifacts\/([^/]+)\/[^/]+|reports\/([^/]+)\.json)$/.exec(name)?.slice(1).find(Boolean);
}
