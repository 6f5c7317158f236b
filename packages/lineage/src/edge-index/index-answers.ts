import { type ActivityRecord, type Boundary, VoxtrailError } from "@voxtrail/core";
import { type BoundariesOptions, type BoundaryCount, byBoundaryOrder } from "../boundaries";
import { type Impact, impact } from "../impact";
import { LineageGraph } from "../lineage-graph";
import type { StoredActivity } from "../lineage-snapshot";
import { type TraceNode, trace } from "../trace";
import {
  ALL_RECORDS_SQL,
  BOUNDARIES_SQL,
  IMPACT_RECORDS_SQL,
  TRACE_RECORDS_SQL,
  WALK_DEPTH,
} from "./index-sql";

/**
 * What answers the index's SQL: DuckDB over the Parquet files locally, Athena in the cloud. It
 * has the views `edges`, `flows` and `records`, binds `?` parameters in order, and returns rows as
 * plain objects (numbers may come back as bigint).
 */
export interface IndexEngine {
  query(sql: string, params: readonly string[]): Promise<Array<Record<string, unknown>>>;
}

/** A walk through the index reached its step limit: the answer may be cut short (ask the records). */
export class IndexWalkTooDeep extends VoxtrailError {
  readonly retryable = false;
}

/**
 * `trace` answered from the index: the records of the jobs on the way back from `name`, selected
 * by one query, then the same `trace` the record-walking path runs, so the answers are the same.
 *
 * @example
 * const tree = await traceFromIndex(engine, "artifacts/vm-0123456789abcdef0123/reply.wav");
 */
export async function traceFromIndex(engine: IndexEngine, name: string): Promise<TraceNode> {
  return trace(await graphOfRecords(engine, TRACE_RECORDS_SQL, nameParams(name)), name);
}

/** `impact` answered from the index, as {@link traceFromIndex} answers `trace`. */
export async function impactFromIndex(engine: IndexEngine, name: string): Promise<Impact> {
  return impact(await graphOfRecords(engine, IMPACT_RECORDS_SQL, nameParams(name)), name);
}

/** `boundaries` answered from the index: one aggregate over the flows table. */
export async function boundariesFromIndex(
  engine: IndexEngine,
  options: BoundariesOptions = {},
): Promise<BoundaryCount[]> {
  const since = options.since === undefined ? "" : new Date(Date.parse(options.since)).toISOString();
  const rows = await engine.query(BOUNDARIES_SQL, [since]);
  return rows
    .map((row) => ({
      kind: row.kind as BoundaryCount["kind"],
      boundary: JSON.parse(String(row.boundary_json)) as Boundary,
      provider: String(row.provider),
      entered: Number(row.entered),
      refused: Number(row.refused),
      source: row.source as BoundaryCount["source"],
    }))
    .sort(byBoundaryOrder);
}

/** The whole lineage graph from the index's records table (what `export` walks). */
export async function graphFromIndex(engine: IndexEngine): Promise<LineageGraph> {
  return graphOfRecords(engine, ALL_RECORDS_SQL, []);
}

async function graphOfRecords(
  engine: IndexEngine,
  sql: string,
  params: readonly string[],
): Promise<LineageGraph> {
  const rows = await engine.query(sql, params);
  if (rows.some((row) => Number(row.reached) >= WALK_DEPTH)) {
    throw new IndexWalkTooDeep(
      `the lineage is more than ${WALK_DEPTH} steps deep here; ask the records instead (--engine records)`,
    );
  }
  const activities: StoredActivity[] = rows.map((row) => ({
    key: String(row.record_key),
    record: JSON.parse(String(row.record)) as ActivityRecord,
    ...(row.record_sha256 ? { sha256: String(row.record_sha256) } : {}),
  }));
  return new LineageGraph(activities, new Map(), []);
}

/** The parameters of the index's `NAMED` keys for an auditor's name (see `LineageGraph.resolve`). */
function nameParams(name: string): string[] {
  const s3Key = /^s3:\/\/[^/]+\/(.+)$/.exec(name)?.[1] ?? name;
  return [name, name, name.toLowerCase(), s3Key];
}
