import type { ActivityRecord } from "@voxtrail/core";
import { type IndexRows, type IndexTable, jobRows } from "./index-rows";
import { type NamedParams, WALK_DEPTH } from "./index-sql";

/** The columns of `table`'s rows. */
export type IndexColumn<T extends IndexTable> = keyof IndexRows[T][number] & string;

/**
 * The rows of `table` whose `column` equals one of `values` (none for no values), with `columns`,
 * in any order: what a walk driven from TypeScript asks at each step. The walk looks up by the
 * table's lookup columns only (`INDEX_COLUMNS`), whose bloom filters let an engine skip every
 * file that cannot hold a value.
 */
export type IndexLookup = <T extends IndexTable>(
  table: T,
  column: IndexColumn<T>,
  values: readonly string[],
  columns: readonly IndexColumn<T>[],
) => Promise<Array<Record<string, unknown>>>;

/** The questions a walk answers: `trace` goes back from an artifact, `impact` forward. */
export type WalkQuestion = "trace" | "impact";

/** An edge as a walk reads it. */
interface Edge {
  job: string;
  record_key: string;
  role: string;
  outcome: string;
  key: string;
}

const EDGE_COLUMNS: readonly IndexColumn<"edges">[] = ["job", "record_key", "role", "outcome", "key"];
const RECORD_COLUMNS: readonly IndexColumn<"records">[] = ["job", "record_key", "record_sha256", "record"];

/** How a question walks, as its SQL in `index-sql.ts` does. */
interface WalkRules {
  /** An edge of a reached key whose record the walk follows. */
  follows(edge: Edge): boolean;
  /** An edge of a followed record whose key the next step reaches. */
  leadsTo(edge: Edge): boolean;
  /** An edge of a key reached at `depth` whose job's records the answer needs. */
  needs(edge: Edge, depth: number): boolean;
}

const RULES: Record<WalkQuestion, WalkRules> = {
  // Back through each successful writer's inputs; the jobs that wrote a reached key, and every job
  // that read the named key itself.
  trace: {
    follows: (edge) => edge.role === "output" && edge.outcome === "succeeded",
    leadsTo: (edge) => edge.role === "input",
    needs: (edge, depth) => edge.role === "output" || depth === 0,
  },
  // Forward through each reader's outputs, failed attempts included; every job that read or wrote
  // a reached key.
  impact: {
    follows: (edge) => edge.role === "input",
    leadsTo: (edge) => edge.role === "output",
    needs: () => true,
  },
};

/**
 * The rows `TRACE_RECORDS_SQL` or `IMPACT_RECORDS_SQL` returns for `params` (`namedParams`),
 * selected by a walk driven from here: at each step, a lookup of the edges of the keys reached,
 * then the records of the jobs whose records the walk follows, up to the same {@link WALK_DEPTH}
 * steps. A followed record's own edges are read from the record (as the index derived them,
 * `jobRows`), not looked up: a job's records are one lookup by job, which the answer reads anyway,
 * where its edges were one lookup per record. Each key and job is looked up once.
 *
 * @example
 * const rows = await walkedRecords(lookup, "impact", namedParams(key));
 */
export async function walkedRecords(
  lookup: IndexLookup,
  question: WalkQuestion,
  params: NamedParams,
): Promise<Array<Record<string, unknown>>> {
  const rules = RULES[question];
  const edgesOfKeys = cachedBy(lookup, "edges", "key", EDGE_COLUMNS, edgeOf, (edge) => edge.key);
  const recordsOf = cachedBy(lookup, "records", "job", RECORD_COLUMNS, recordRowOf, (row) => row.job);
  const edgesOfRecords = derivedEdges(recordsOf);
  const jobs = new Set<string>();
  let keys = await namedKeys(lookup, edgesOfKeys, params);
  let reached = 0;
  for (let depth = 0; keys.length > 0; depth++) {
    reached = depth;
    const edges = await edgesOfKeys(keys);
    for (const edge of edges) if (rules.needs(edge, depth)) jobs.add(edge.job);
    if (depth === WALK_DEPTH) break;
    const followed = edges.filter(rules.follows);
    const recordEdges = await edgesOfRecords(distinct(followed.map((edge) => edge.job)));
    const next = followed.flatMap((edge) => recordEdges.get(edge.record_key) ?? []);
    keys = distinct(next.filter(rules.leadsTo).map((edge) => edge.key));
  }
  const rows = await recordsOf([...jobs]);
  return rows.sort(byRecordKey).map(({ record_key, record_sha256, record }) => ({
    record_key,
    record_sha256,
    record,
    reached,
  }));
}

/** A name that is a uri starts with a scheme (`s3:`, `file:`); only such a name is looked up as one. */
const URI = /^[a-z][a-z0-9+.-]*:/i;
/** A sha256 as the index holds it (its parameter is lower-cased); only such a name is looked up as one. */
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The keys of the edges that name `params` (`NAMED` in `index-sql.ts`); the name as a key is
 * looked up through `edgesOfKeys`, so that the walk's first step finds its edges known. The name
 * is looked up as a uri or a sha256 only where it could be one: each lookup reads every day's
 * file, and most names asked are keys.
 */
async function namedKeys(
  lookup: IndexLookup,
  edgesOfKeys: EdgesOfKeys,
  [asKey, asUri, asSha256, s3Key]: NamedParams,
): Promise<string[]> {
  const rows = [
    ...(await edgesOfKeys(distinct([asKey, s3Key]))),
    ...(URI.test(asUri) ? await lookup("edges", "uri", [asUri], ["key"]) : []),
    ...(SHA256.test(asSha256) ? await lookup("edges", "sha256", [asSha256], ["key"]) : []),
  ];
  return distinct(rows.map((row) => String(row.key)));
}

/** The rows whose lookup column is one of `values`. */
type CachedRows<Row> = (values: readonly string[]) => Promise<Row[]>;

/** The edges whose key is one of `values`. */
type EdgesOfKeys = CachedRows<Edge>;

/**
 * Rows of `table` by `column` (as `rowOf` reads them; `lookedUpBy` gives a row's value of `column`),
 * each value looked up once however often it is asked for.
 */
function cachedBy<T extends IndexTable, Row>(
  lookup: IndexLookup,
  table: T,
  column: IndexColumn<T>,
  columns: readonly IndexColumn<T>[],
  rowOf: (row: Record<string, unknown>) => Row,
  lookedUpBy: (row: Row) => string,
): CachedRows<Row> {
  const known = new Map<string, Row[]>();
  return async (values) => {
    const unknown = values.filter((value) => !known.has(value));
    for (const value of unknown) known.set(value, []);
    for (const found of await lookup(table, column, unknown, columns)) {
      const row = rowOf(found);
      known.get(lookedUpBy(row))?.push(row);
    }
    return values.flatMap((value) => known.get(value) ?? []);
  };
}

/** A records row as looked up, with its job. */
interface RecordRow {
  job: string;
  record_key: string;
  record_sha256: string;
  record: string;
}

/**
 * The edges of the records of some jobs, by record key, as the index derives them from each
 * record (`jobRows`), each record's once.
 */
function derivedEdges(
  recordsOf: CachedRows<RecordRow>,
): (jobs: readonly string[]) => Promise<Map<string, Edge[]>> {
  const edgesByRecord = new Map<string, Edge[]>();
  return async (jobs) => {
    const byRecord = new Map<string, Edge[]>();
    for (const row of await recordsOf(jobs)) {
      let edges = edgesByRecord.get(row.record_key);
      if (!edges) {
        const activity = { key: row.record_key, record: JSON.parse(row.record) as ActivityRecord };
        edges = jobRows(row.job, [activity]).edges;
        edgesByRecord.set(row.record_key, edges);
      }
      byRecord.set(row.record_key, edges);
    }
    return byRecord;
  };
}

function recordRowOf(row: Record<string, unknown>): RecordRow {
  return {
    job: String(row.job),
    record_key: String(row.record_key),
    record_sha256: row.record_sha256 == null ? "" : String(row.record_sha256),
    record: String(row.record),
  };
}

function edgeOf(row: Record<string, unknown>): Edge {
  return {
    job: String(row.job),
    record_key: String(row.record_key),
    role: String(row.role),
    outcome: String(row.outcome),
    key: String(row.key),
  };
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** By record key as SQL's `ORDER BY` sorts text: by its UTF-8 bytes. */
function byRecordKey(a: { record_key: string }, b: { record_key: string }): number {
  return Buffer.compare(Buffer.from(a.record_key), Buffer.from(b.record_key));
}
