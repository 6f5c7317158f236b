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
  namedParams,
  TRACE_RECORDS_SQL,
  WALK_DEPTH,
} from "./index-sql";
import { type IndexLookup, type WalkQuestion, walkedRecords } from "./index-walk";

/**
 * What answers the index's SQL: DuckDB over the Parquet files locally, Athena in the cloud. It
 * has the views `edges`, `flows` and `records`, binds `?` parameters in order, and returns rows as
 * plain objects (numbers may come back as bigint).
 */
export interface IndexEngine {
  query(sql: string, params: readonly string[]): Promise<Array<Record<string, unknown>>>;
  /**
   * Where a query costs milliseconds (DuckDB, locally): `trace` and `impact` then walk from here,
   * a few single-key lookups per step. Without it (Athena, where a query costs seconds), each is
   * one recursive query.
   */
  lookup?: IndexLookup;
}

/** A walk through the index reached its step limit: the answer may be cut short (ask the records). */
export class IndexWalkTooDeep extends VoxtrailError {
  readonly retryable = false;
}

/**
 * `trace` answered from the index: the records of the jobs on the way back from `name`, selected
 * by one query (or by a walk of lookups, where the engine has them), then the same `trace` the
 * record-walking path runs, so the answers are the same.
 *
 * @example
 * const tree = await traceFromIndex(engine, "artifacts/vm-0123456789abcdef0123/reply.wav");
 */
export async function traceFromIndex(engine: IndexEngine, name: string): Promise<TraceNode> {
  return trace(graphOf(await walkRows(engine, "trace", name)), name);
}

/** `impact` answered from the index, as {@link traceFromIndex} answers `trace`. */
export async function impactFromIndex(engine: IndexEngine, name: string): Promise<Impact> {
  return impact(graphOf(await walkRows(engine, "impact", name)), name);
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
      ...(row.redacted === "true" || row.redacted === "false" ? { redacted: row.redacted === "true" } : {}),
    }))
    .sort(byBoundaryOrder);
}

/** The whole lineage graph from the index's records table (what `export` walks). */
export async function graphFromIndex(engine: IndexEngine): Promise<LineageGraph> {
  return graphOf(await engine.query(ALL_RECORDS_SQL, []));
}

const WALK_SQL: Record<WalkQuestion, string> = { trace: TRACE_RECORDS_SQL, impact: IMPACT_RECORDS_SQL };

/** The records a question needs: walked by the engine's lookups where it has them, else its SQL. */
function walkRows(
  engine: IndexEngine,
  question: WalkQuestion,
  name: string,
): Promise<Array<Record<string, unknown>>> {
  const lookup = engine.lookup?.bind(engine);
  return lookup
    ? walkedRecords(lookup, question, namedParams(name))
    : engine.query(WALK_SQL[question], namedParams(name));
}

function graphOf(rows: ReadonlyArray<Record<string, unknown>>): LineageGraph {
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
