import type { ObjectStore } from "@voxtrail/core";
import {
  type BoundariesOptions,
  type BoundaryCount,
  boundaries,
  boundariesFromIndex,
  graphFromIndex,
  type Impact,
  type IndexEngine,
  impact,
  impactFromIndex,
  jobIdOfArtifactName,
  LineageGraph,
  readLineage,
  type TraceNode,
  trace,
  traceFromIndex,
} from "@voxtrail/lineage/answers";

/** The questions `trace`, `impact`, `boundaries` and `export` ask, whatever answers them. */
export interface LineageAnswers {
  trace(name: string): Promise<TraceNode>;
  impact(name: string): Promise<Impact>;
  boundaries(options: BoundariesOptions): Promise<BoundaryCount[]>;
  /** The whole lineage graph (what `export` walks). */
  graph(): Promise<LineageGraph>;
}

/**
 * Answers from the records: each question reads the lineage (a finished job's records from its
 * summary), a trace of a job's artifact only that job's.
 */
export function recordAnswers(store: ObjectStore): LineageAnswers {
  const graphOf = async (jobId?: string) =>
    LineageGraph.of(await readLineage(store, { ...(jobId ? { jobId } : {}), from: "summaries" }));
  return {
    trace: async (name) => trace(await graphOf(jobIdOfArtifactName(name)), name),
    impact: async (name) => impact(await graphOf(), name),
    boundaries: async (options) => boundaries(await graphOf(), options),
    graph: () => graphOf(),
  };
}

/** Answers from the lineage edge index, through `engine` (DuckDB or Athena). */
export function indexAnswers(engine: IndexEngine): LineageAnswers {
  return {
    trace: (name) => traceFromIndex(engine, name),
    impact: (name) => impactFromIndex(engine, name),
    boundaries: (options) => boundariesFromIndex(engine, options),
    graph: () => graphFromIndex(engine),
  };
}
