import type { IndexRows, IndexTable } from "./index-rows";
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
const RECORD_COLUMNS: readonly IndexColumn<"records">[] = ["record_key", "record_sha256", "record"];

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
 * then of the edges of the records they lead to, up to the same {@link WALK_DEPTH} steps. Each key
 * and record is looked up once.
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
  const edgesOfKeys = cachedEdges(lookup, "key");
  const edgesOfRecords = cachedEdges(lookup, "record_key");
  const jobs = new Set<string>();
  let keys = await namedKeys(lookup, edgesOfKeys, params);
  let reached = 0;
  for (let depth = 0; keys.length > 0; depth++) {
    reached = depth;
    const edges = await edgesOfKeys(keys);
    for (const edge of edges) if (rules.needs(edge, depth)) jobs.add(edge.job);
    if (depth === WALK_DEPTH) break;
    const records = distinct(edges.filter(rules.follows).map((edge) => edge.record_key));
    keys = distinct((await edgesOfRecords(records)).filter(rules.leadsTo).map((edge) => edge.key));
  }
  const rows = await lookup("records", "job", [...jobs], RECORD_COLUMNS);
  return rows.sort(byRecordKey).map((row) => ({ ...row, reached }));
}

/**
 * The keys of the edges that name `params` (`NAMED` in `index-sql.ts`); the name as a key is
 * looked up through `edgesOfKeys`, so that the walk's first step finds its edges known.
 */
async function namedKeys(
  lookup: IndexLookup,
  edgesOfKeys: EdgesBy,
  [asKey, asUri, asSha256, s3Key]: NamedParams,
): Promise<string[]> {
  const rows = [
    ...(await edgesOfKeys(distinct([asKey, s3Key]))),
    ...(await lookup("edges", "uri", [asUri], ["key"])),
    ...(await lookup("edges", "sha256", [asSha256], ["key"])),
  ];
  return distinct(rows.map((row) => String(row.key)));
}

/** The edges whose column is one of `values`. */
type EdgesBy = (values: readonly string[]) => Promise<Edge[]>;

/** Edges by `column`, each value looked up once however often it is asked for. */
function cachedEdges(lookup: IndexLookup, column: "key" | "record_key"): EdgesBy {
  const known = new Map<string, Edge[]>();
  return async (values) => {
    const unknown = values.filter((value) => !known.has(value));
    for (const value of unknown) known.set(value, []);
    for (const row of await lookup("edges", column, unknown, EDGE_COLUMNS)) {
      const edge = edgeOf(row);
      known.get(edge[column])?.push(edge);
    }
    return values.flatMap((value) => known.get(value) ?? []);
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
function byRecordKey(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return Buffer.compare(Buffer.from(String(a.record_key)), Buffer.from(String(b.record_key)));
}
