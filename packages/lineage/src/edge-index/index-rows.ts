import { describeBoundary } from "@voxtrail/core";
import { attemptFlows } from "../boundaries";
import type { StoredActivity } from "../lineage-snapshot";

/** One link between an activity record and an artifact it read (`input`) or wrote (`output`). */
export interface EdgeRow {
  job: string;
  record_key: string;
  stage: string;
  attempt: number;
  outcome: string;
  /** ISO 8601 in UTC with milliseconds, so that text order is time order on every engine. */
  started_at: string;
  role: "input" | "output";
  key: string;
  uri: string;
  sha256: string;
  kind: string;
}

/** One data flow of one stage attempt into a boundary, as `lineage boundaries` counts it. */
export interface FlowRow {
  job: string;
  record_key: string;
  started_at: string;
  kind: string;
  /** `describeBoundary` of the boundary: what rows group by. */
  boundary: string;
  /** The boundary itself, as JSON. */
  boundary_json: string;
  provider: string;
  source: string;
  entered: number;
  refused: number;
  /**
   * Whether the flow entered redacted: `true`, `false` (the policy required it and it was not), or
   * "" where no redaction was asked (`BoundaryCount.redacted` absent). The last column: a file
   * indexed before it existed reads as "".
   */
  redacted: "true" | "false" | "";
}

/** One activity record, whole: what an answer is rebuilt from. */
export interface RecordRow {
  job: string;
  record_key: string;
  /** The sha256 of the record's bytes as stored (as its summary names it); "" when unknown. */
  record_sha256: string;
  started_at: string;
  record: string;
}

/** One job in the index: which day holds its rows, and which summary they came from. */
export interface JobRow {
  job: string;
  day: string;
  /** When the job's lineage summary was last written, as the store lists it; "" for none. */
  summary_modified: string;
  records: number;
}

/** The rows of the index's four tables. */
export interface IndexRows {
  edges: EdgeRow[];
  flows: FlowRow[];
  records: RecordRow[];
  jobs: JobRow[];
}

/** The index's tables by name. */
export type IndexTable = keyof IndexRows;

/** Every table of the index, in the order they are written. */
export const INDEX_TABLES: readonly IndexTable[] = ["edges", "flows", "records", "jobs"];

/** Rows of no table. */
export function emptyRows(): IndexRows {
  return { edges: [], flows: [], records: [], jobs: [] };
}

/**
 * The index rows of one job, from its activity records: an edge per input and output, a flow per
 * data flow, the records themselves, and the job's row. Its day is the UTC day its first attempt
 * started, which later attempts never change, so a job's rows live in one partition for good.
 *
 * @example
 * const rows = jobRows("vm-0123456789abcdef0123", summary.records, "2026-12-02T10:00:00.000Z");
 */
export function jobRows(
  jobId: string,
  activities: readonly StoredActivity[],
  summaryModified = "",
): IndexRows {
  const rows = emptyRows();
  if (activities.length === 0) return rows;
  for (const { key, record, sha256 } of activities) {
    const started_at = isoTime(record.startedAt);
    const attempt = { job: jobId, record_key: key, started_at };
    const link = (role: EdgeRow["role"]) => (ref: (typeof record.inputs)[number]) =>
      rows.edges.push({
        ...attempt,
        stage: record.stage,
        attempt: record.attempt,
        outcome: record.outcome,
        role,
        key: ref.key,
        uri: ref.uri,
        sha256: ref.sha256,
        kind: ref.kind,
      });
    record.inputs.forEach(link("input"));
    record.outputs.forEach(link("output"));
    for (const flow of attemptFlows(record)) {
      rows.flows.push({
        ...attempt,
        kind: flow.kind,
        boundary: describeBoundary(flow.boundary),
        boundary_json: JSON.stringify(flow.boundary),
        provider: flow.provider,
        source: flow.source,
        entered: flow.entered,
        refused: flow.refused,
        redacted: flow.redacted === undefined ? "" : flow.redacted ? "true" : "false",
      });
    }
    rows.records.push({ ...attempt, record_sha256: sha256 ?? "", record: JSON.stringify(record) });
  }
  const firstStart = rows.records.map((row) => row.started_at).sort()[0] as string;
  rows.jobs.push({
    job: jobId,
    day: firstStart.slice(0, 10),
    summary_modified: summaryModified,
    records: activities.length,
  });
  return rows;
}

/** Appends `more` to `rows`, table by table. */
export function appendRows(rows: IndexRows, more: IndexRows): IndexRows {
  // A loop, not `push(...rows)`: a day of many jobs has more rows than a call takes arguments.
  for (const table of INDEX_TABLES) {
    const into = rows[table] as unknown[];
    for (const row of more[table]) into.push(row);
  }
  return rows;
}

/** The day a job's rows belong to (see {@link jobRows}). */
export function dayOfRows(rows: IndexRows): string | undefined {
  return rows.jobs[0]?.day;
}

/** A time as `toISOString` writes it; a time that does not parse is kept as written. */
function isoTime(time: string): string {
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? time : new Date(parsed).toISOString();
}
