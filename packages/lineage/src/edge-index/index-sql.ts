/**
 * The index's questions as SQL: one text per question, in the dialect DuckDB and Athena (Trino)
 * share: `WITH RECURSIVE` with a column list and `UNION ALL`, `?` parameters, plain aggregates.
 * Each reads the views `edges`, `flows` and `records` (the tables of `index-tables.ts`).
 *
 * The walks follow artifact keys from the name asked about, and stop at {@link WALK_DEPTH} steps
 * (a voicemail's longest chain, source to reply audio, is five): every row carries `reached`, the
 * deepest step taken, so a caller can tell an answer that may be cut short.
 */

/** Steps a walk takes at most; Trino's default `max_recursion_depth` is 10. */
export const WALK_DEPTH = 8;

/**
 * The keys an auditor's name may stand for: the parameters are the name as a key, as a uri, as a
 * sha256 (lower case), and the key inside an `s3://bucket/key` uri ({@link namedParams}).
 */
const NAMED = "SELECT DISTINCT key, 0 AS depth FROM edges WHERE key = ? OR uri = ? OR sha256 = ? OR key = ?";

/** The parameters of a walk's named keys, in the order `NAMED` binds them. */
export type NamedParams = readonly [key: string, uri: string, sha256: string, s3Key: string];

/**
 * The parameters of the named keys of {@link TRACE_RECORDS_SQL} and {@link IMPACT_RECORDS_SQL}
 * for an auditor's name (see `LineageGraph.resolve`).
 */
export function namedParams(name: string): NamedParams {
  const s3Key = /^s3:\/\/[^/]+\/(.+)$/.exec(name)?.[1] ?? name;
  return [name, name, name.toLowerCase(), s3Key];
}

/**
 * The records a trace needs: every job that wrote a key on the way back from the named artifact
 * (following each successful writer's inputs), and every job that read the named key itself (its
 * latest reader describes a source).
 */
export const TRACE_RECORDS_SQL = walkRecordsSql({
  step: `SELECT i.key, w.depth + 1
  FROM walk w
  JOIN edges o ON o.role = 'output' AND o.outcome = 'succeeded' AND o.key = w.key
  JOIN edges i ON i.role = 'input' AND i.record_key = o.record_key`,
  needed: `SELECT e.job FROM edges e WHERE e.role = 'output' AND e.key IN (SELECT key FROM walk)
  UNION
  SELECT e.job FROM edges e WHERE e.key IN (SELECT key FROM walk WHERE depth = 0)`,
});

/**
 * The records an impact needs: every job that read or wrote a key on the way forward from the
 * named artifact (each reader's outputs, then their readers, failed attempts included).
 */
export const IMPACT_RECORDS_SQL = walkRecordsSql({
  step: `SELECT o.key, w.depth + 1
  FROM walk w
  JOIN edges i ON i.role = 'input' AND i.key = w.key
  JOIN edges o ON o.role = 'output' AND o.record_key = i.record_key`,
  needed: "SELECT e.job FROM edges e WHERE e.key IN (SELECT key FROM walk)",
});

/**
 * Boundary counts of the attempts that started at or after the parameter (ISO 8601; "" for all),
 * redacted and unredacted flows apart (a file indexed before `redacted` existed reads NULL: "").
 */
export const BOUNDARIES_SQL = `
SELECT kind, boundary, min(boundary_json) AS boundary_json, provider, source,
  coalesce(redacted, '') AS redacted, sum(entered) AS entered, sum(refused) AS refused
FROM flows
WHERE started_at >= ?
GROUP BY kind, boundary, provider, source, coalesce(redacted, '')`;

/** Every record, in key order (what `export` and a whole-store graph read). */
export const ALL_RECORDS_SQL = `
SELECT r.record_key, r.record_sha256, r.record, 0 AS reached
FROM records r
ORDER BY r.record_key`;

/**
 * A walk's SQL: from the named keys, `step` (the next keys from `walk w`) at most
 * {@link WALK_DEPTH} times, then the records of the jobs `needed` selects from the keys walked.
 */
function walkRecordsSql({ step, needed }: { step: string; needed: string }): string {
  return `
WITH RECURSIVE walk (key, depth) AS (
  ${NAMED}
  UNION ALL
  ${step}
  WHERE w.depth < ${WALK_DEPTH}
),
needed (job) AS (
  ${needed}
)
SELECT r.record_key, r.record_sha256, r.record, (SELECT max(depth) FROM walk) AS reached
FROM records r
WHERE r.job IN (SELECT job FROM needed)
ORDER BY r.record_key`;
}
