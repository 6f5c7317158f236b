import { mapLimit, type ObjectStore } from "@voxtrail/core";
import type { StoredActivity } from "../lineage-snapshot";
import { jobOfSummaryKey } from "../stored-summary";
import { sha256Hex } from "./index-generation";
import { type IndexManifest, latestManifest } from "./index-manifest";
import { INDEX_TABLES, type IndexRows, type IndexTable, jobRows } from "./index-rows";
import { readTableParquet } from "./index-tables";
import { FILTERED_LOOKUPS, filteredValues, type LookupFilters, parseLookupFilters } from "./lookup-filters";
import { listSummaries, pendingJobs } from "./pending-jobs";

/** Something the lineage edge index says that the records do not. */
export interface IndexFinding {
  /**
   * `index-mismatch`: a job's rows differ from the rows its records give; `index-missing-job`: a
   * finished job the index should hold (its summary is not newer than the index) is not in it;
   * `index-extra-job`: the index holds a job the store has no records of; `index-file-changed`: a
   * file's bytes are not those whose sha256 its manifest records (edited since it was indexed);
   * `index-filter-mismatch`: the lookup filter of a job's day rules out a key or job its rows hold,
   * so a walk would not find them.
   */
  problem:
    | "index-mismatch"
    | "index-missing-job"
    | "index-extra-job"
    | "index-file-changed"
    | "index-filter-mismatch";
  /** The manifest of the index checked. */
  key: string;
  detail: string;
}

/** What {@link checkLineageIndex} found. */
export interface IndexCheck {
  /** The manifest checked; absent when the store has no index (nothing to check). */
  manifestKey?: string;
  /** Jobs whose rows were compared with their records. */
  jobsChecked: number;
  findings: IndexFinding[];
}

/**
 * Checks the lineage edge index against the records it is derived from: for every job it holds,
 * every row of every table must be what the job's records give (`jobRows`), and every finished job
 * must be in it, except jobs finished since the index was compacted, found as the questions find
 * them (`pendingJobs`: by their notes), since those read such jobs from their summaries. With
 * `jobId`, that job only.
 *
 * @example
 * const { findings } = await checkLineageIndex(store, (await readLineage(store)).activities);
 */
export async function checkLineageIndex(
  store: ObjectStore,
  activities: readonly StoredActivity[],
  options: { jobId?: string } = {},
): Promise<IndexCheck> {
  const latest = await latestManifest(store);
  if (!latest) return { jobsChecked: 0, findings: [] };
  const { key, manifest } = latest;
  const [pending, summaries] = await Promise.all([
    // The jobs the answers read from their summaries, found as the answers find them (by their
    // notes, for an index written since jobs leave notes): a job only the listing calls newer
    // (its summary put again, by anyone) is answered from the index's rows, so they are checked.
    pendingJobs(store, manifest),
    listSummaries(store),
  ]);
  const wanted = (jobId: string) =>
    (options.jobId === undefined || jobId === options.jobId) && !pending.rows.has(jobId);

  const byJob = new Map<string, StoredActivity[]>();
  for (const entry of activities) {
    if (!wanted(entry.record.jobId)) continue;
    const list = byJob.get(entry.record.jobId);
    if (list) list.push(entry);
    else byJob.set(entry.record.jobId, [entry]);
  }
  const findings: IndexFinding[] = [];
  const finding = (problem: IndexFinding["problem"], detail: string) =>
    findings.push({ problem, key, detail });
  const indexed = await indexedRowsByJob(store, manifest, wanted, (file, actual, recorded) =>
    finding("index-file-changed", `the file ${file} has sha256 ${actual}, its manifest records ${recorded}`),
  );

  const filters = await readFilters(store, manifest, (file, actual, recorded) =>
    finding("index-file-changed", `the file ${file} has sha256 ${actual}, its manifest records ${recorded}`),
  );
  for (const [jobId, rows] of indexed) {
    const missed = filters ? filteredOut(filters, rows) : [];
    if (missed.length > 0) {
      // Named by column and counted, not quoted: an edge key can be a caller's upload name.
      finding(
        "index-filter-mismatch",
        `the lookup filter of job ${jobId}'s day (${rows.jobs[0]?.day}) rules out ${missed.length} value(s) its rows hold (${[...new Set(missed)].join(", ")})`,
      );
    }
    const records = byJob.get(jobId);
    if (!records) {
      finding("index-extra-job", `the index holds job ${jobId}, which has no lineage records`);
      continue;
    }
    const expected = jobRows(jobId, records);
    const differing = INDEX_TABLES.filter((table) => !sameRows(table, rows[table], expected[table]));
    if (differing.length > 0) {
      finding("index-mismatch", `job ${jobId}'s ${differing.join(", ")} rows differ from its records`);
    }
  }
  const finished = new Set(summaries.map(({ key: summaryKey }) => jobOfSummaryKey(summaryKey)));
  for (const jobId of byJob.keys()) {
    if (finished.has(jobId) && !indexed.has(jobId)) {
      finding("index-missing-job", `finished job ${jobId} is not in the index`);
    }
  }
  return { manifestKey: key, jobsChecked: indexed.size, findings };
}

/**
 * Every row the manifest's files hold, grouped by job, for the jobs `wanted` accepts; each file whose
 * bytes' sha256 is not the one the manifest records (where it records one) told to `changed`.
 */
async function indexedRowsByJob(
  store: ObjectStore,
  manifest: IndexManifest,
  wanted: (jobId: string) => boolean,
  changed: (file: string, actual: string, recorded: string) => void,
): Promise<Map<string, IndexRows>> {
  const byJob = new Map<string, IndexRows>();
  const work = Object.values(manifest.days).flatMap((day) =>
    INDEX_TABLES.map((table) => ({ table, key: day.files[table], recorded: day.sha256?.[table] })),
  );
  await mapLimit(work, 4, async ({ table, key, recorded }) => {
    const bytes = await store.getBytes(key);
    const actual = recorded === undefined ? undefined : sha256Hex(bytes);
    if (actual !== undefined && recorded !== undefined && actual !== recorded) changed(key, actual, recorded);
    const rows = await readTableParquet(table, bytes);
    for (const row of rows as Array<{ job: string }>) {
      if (!wanted(row.job)) continue;
      let job = byJob.get(row.job);
      if (!job) {
        job = { edges: [], flows: [], records: [], jobs: [] };
        byJob.set(row.job, job);
      }
      (job[table] as unknown[]).push(row);
    }
  });
  return byJob;
}

/**
 * The manifest's lookup filters, read and checked against its sha256: none when it has none, or when
 * the bytes differ (told to `changed`, whose finding says so).
 */
async function readFilters(
  store: ObjectStore,
  manifest: IndexManifest,
  changed: (file: string, actual: string, recorded: string) => void,
): Promise<LookupFilters | undefined> {
  if (!manifest.filters) return undefined;
  const bytes = await store.getBytes(manifest.filters.key);
  const actual = sha256Hex(bytes);
  if (actual !== manifest.filters.sha256) {
    changed(manifest.filters.key, actual, manifest.filters.sha256);
    return undefined;
  }
  return parseLookupFilters(bytes, manifest.filters.key);
}

/** The lookup (`edges.key`) of each filtered value of one job's rows (`filteredValues`) that its day's filter rules out. */
function filteredOut(filters: LookupFilters, rows: IndexRows): string[] {
  const day = rows.jobs[0]?.day;
  if (day === undefined) return [];
  return filteredValues(rows)
    .filter(({ table, value }) => filters.daysWith(table, value, [day]).length === 0)
    .map(({ table }) => `${table}.${FILTERED_LOOKUPS[table]}`);
}

/**
 * Whether two lists hold the same rows in any order. What the records cannot say is left out: a
 * job row's `summary_modified` (when its summary was listed), and a record's sha256 where the
 * summary it was compacted from named none (the record itself is still compared).
 */
function sameRows(table: IndexTable, actual: readonly object[], expected: readonly object[]): boolean {
  if (actual.length !== expected.length) return false;
  const unknownHash =
    table === "records" && actual.some((row) => (row as { record_sha256: string }).record_sha256 === "");
  const text = (row: object) => {
    const { summary_modified: _listed, record_sha256: hash, ...rest } = row as Record<string, unknown>;
    const compared: Record<string, unknown> = {
      ...rest,
      ...(hash === undefined || unknownHash ? {} : { hash }),
    };
    return JSON.stringify(compared, Object.keys(compared).sort());
  };
  const left = actual.map(text).sort();
  const right = expected.map(text).sort();
  return left.every((row, index) => row === right[index]);
}
