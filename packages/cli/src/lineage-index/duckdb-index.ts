import type { KeyObject } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBValue, listValue } from "@duckdb/node-api";
import type { ObjectStore } from "@voxtrail/core";
import {
  INDEX_COLUMNS,
  INDEX_TABLES,
  type IndexEngine,
  type IndexLookup,
  type IndexManifest,
  type IndexProof,
  type IndexTable,
  isFilteredLookup,
  LATER_COLUMNS,
  type LookupFilters,
  lookupFiltersOf,
  pendingJobs,
  proveIndex,
  tableParquet,
} from "@voxtrail/lineage/answers";
import { IndexFilePaths } from "./index-file-paths";
import { VerifiedFiles } from "./verified-files";

/** The index opened in DuckDB: ask it, then close it (its temporary files go with it). */
export interface DuckDbIndex extends IndexEngine {
  /** The generation answering: the signed one where a trusted digest names one (see `proof`). */
  manifest: IndexManifest;
  /** How far that generation is proven, and by which digest. */
  proof: IndexProof;
  /** Files read that the (signed) manifest records no sha256 for: written before files were hashed. */
  unprovenFiles: number;
  /** Jobs finished since the index was compacted, read from their summaries for this session. */
  pending: number;
  lookup: IndexLookup;
  close(): Promise<void>;
}

/** Options of {@link openDuckDbIndex}. */
export interface DuckDbIndexOptions {
  /**
   * The keys digests are checked with (`lineage verify`'s): the index answers from the generation
   * the newest digest they verify names, each file checked against its manifest's sha256 before it
   * is read. None: the latest generation, unproven.
   */
  trustedKeys?: KeyObject[];
  /** The tables the question reads (default all): only their files are read, checked and viewed. */
  tables?: readonly IndexTable[];
  /**
   * Whether a directory store's files hashed once are remembered, by their identity on disk, and
   * not hashed again while unchanged ({@link VerifiedFiles}; default true).
   */
  remember?: boolean;
}

/**
 * Opens the store's lineage edge index in an in-memory DuckDB: the Parquet files of `tables` that
 * the generation {@link proveIndex} chose names ({@link IndexFilePaths}: in place from a directory
 * store, fetched from a bucket), plus the rows of jobs whose summaries were written since, which
 * replace any rows the files hold for them. Each file is made ready when a query first needs it:
 * a walk's lookups that the generation's lookup filters answer read a day's file or two, other
 * queries every day's. A proven generation's file is hashed before DuckDB reads it, and one whose
 * bytes differ from its manifest's sha256 (or is gone) rejects the query with
 * `LineageIndexTampered` naming it. Resolves to `undefined` when the store has no index. It
 * answers `trace` and `impact` by lookups, a walk driven from TypeScript (see
 * `IndexEngine.lookup`); close it to remember the files hashed ({@link VerifiedFiles}).
 *
 * @example
 * const index = await openDuckDbIndex(store, { trustedKeys, tables: ["edges", "records"] });
 * if (index) try { console.log(await traceFromIndex(index, key)); } finally { await index.close(); }
 */
export async function openDuckDbIndex(
  store: ObjectStore,
  options: DuckDbIndexOptions = {},
): Promise<DuckDbIndex | undefined> {
  const proof = await proveIndex(store, options.trustedKeys ?? []);
  if (!proof) return undefined;
  const { manifest } = proof.stored;
  const tables = options.tables ?? INDEX_TABLES;
  // DuckDB (native) loads only for a store that has an index: an empty store's answer needs none.
  // Required, not imported: Node's import() of this CommonJS package first reads each of its files
  // for the names it exports (cjs-module-lexer), which took as long again as loading it.
  const duckdb: typeof import("@duckdb/node-api") = createRequire(import.meta.url)("@duckdb/node-api");
  const scratch = await mkdtemp(join(tmpdir(), "voxtrail-index-"));
  const instance = await duckdb.DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  const close = async () => {
    connection.closeSync();
    instance.closeSync();
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    // A walk asks the same files a query per step: their Parquet footers are read once, not each time
    // (`npm run bench -- --only cli`: impact at 100,000 jobs +840 -> +302 ms over its floor, docs/benchmarks.md).
    await connection.run("SET parquet_metadata_cache = true");
    // From a signed generation older than the latest, the notes of the jobs since are gone (the
    // later compaction cleared them): the summaries' listing finds those jobs.
    const pending = await pendingJobs(
      store,
      manifest,
      proof.status === "proven" && proof.unsignedNewer ? { from: "listing" } : {},
    );
    const check = proof.status === "proven";
    const verified = check && options.remember !== false ? await VerifiedFiles.load() : undefined;
    const files = new IndexFilePaths(store, manifest, { scratch, check, verified });
    const sources = new Map<IndexTable, TableSource>();
    for (const table of tables) {
      const fresh = [...pending.rows.values()].flatMap((rows) => rows[table] as unknown[]);
      let pendingFile: string | undefined;
      if (fresh.length > 0) {
        pendingFile = join(scratch, `pending-${table}.parquet`);
        await writeFile(pendingFile, tableParquet(table, fresh as never));
      }
      sources.set(table, {
        days: Object.keys(manifest.days),
        pendingFile,
        freshJobs: [...pending.rows.keys()],
      });
    }
    const index: OpenedIndex = {
      connection,
      files,
      sources,
      // Each made when a query first needs it: a walk's filtered lookups need neither.
      views: new Map(
        tables.map((table) => [table, once(() => createView(connection, files, table, sources))]),
      ),
      // Read at the first lookup they answer: a question of the flows alone never reads them.
      filters: once(() => lookupFiltersOf(store, manifest, check)),
    };
    return {
      manifest,
      proof,
      unprovenFiles: files.unproven(tables),
      pending: pending.rows.size,
      close: async () => {
        await verified?.save();
        await close();
      },
      query: async (sql, params) => {
        for (const view of index.views.values()) await view();
        return rowsOf(connection, sql, [...params]);
      },
      lookup: lookupIn(index, duckdb.listValue),
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Values up to which a lookup asks one query per value: over the day or two its lookup filter may
 * hold (a few ms), or, where the filters do not answer, over every day's files, whose statistics and
 * bloom filters answer without a scan (about 10 ms over 100 days); past it, one scan of every day's
 * files for them all (100 to 300 ms).
 */
const SINGLE_LOOKUPS = 16;

/** What a table's view reads: each day's file, and the rows of the jobs read fresh (see {@link sourceSql}). */
interface TableSource {
  /** The days whose files it reads, in the manifest's order. */
  days: string[];
  /** The fresh jobs' rows, as a file; none when there are none. */
  pendingFile: string | undefined;
  /** The jobs read fresh, whose rows in the days' files are left out. */
  freshJobs: string[];
}

/** The index as its queries reach it: the connection, the files, each table's view, the lookup filters. */
interface OpenedIndex {
  connection: DuckDBConnection;
  files: IndexFilePaths;
  sources: ReadonlyMap<IndexTable, TableSource>;
  /** Makes (once) the view of each table over every day's files, each file ready first. */
  views: ReadonlyMap<IndexTable, () => Promise<void>>;
  filters: () => Promise<LookupFilters | undefined>;
}

/** Creates `table`'s view over every day's files, once each is ready (checked, fetched). */
async function createView(
  connection: DuckDBConnection,
  files: IndexFilePaths,
  table: IndexTable,
  sources: ReadonlyMap<IndexTable, TableSource>,
): Promise<void> {
  const source = sources.get(table) as TableSource;
  const paths = await files.paths(table, source.days);
  await connection.run(`CREATE VIEW ${table} AS ${sourceSql(table, source, paths)}`);
}

/** `make`'s promise, made at the first call and given again at each later one. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** The lookups of the index (see `IndexLookup`), lists made with DuckDB's `listValue`. */
function lookupIn(index: OpenedIndex, listOf: typeof listValue): IndexLookup {
  const { connection } = index;
  const single = serialRuns(connection);
  return async (table, column, values, columns) => {
    const select = `SELECT ${columns.join(", ")} FROM ${table} WHERE ${column}`;
    const view = index.views.get(table);
    const source = index.sources.get(table);
    if (!view || !source) throw new Error(`the index was opened without the ${table} table`);
    if (values.length > SINGLE_LOOKUPS) {
      await view();
      return rowsOf(connection, `${select} IN (SELECT unnest(?::VARCHAR[]))`, [listOf([...values])]);
    }
    const found: Array<Array<Record<string, unknown>>> = [];
    for (const value of values) {
      const days = await filteredDays(index, table, column, value);
      if (days === undefined) {
        await view();
        found.push(await single(`${select} = ?`, value, { prepare: true }));
      } else if (days.length > 0 || source.pendingFile) {
        const from = `(${sourceSql(table, source, await index.files.paths(table, days))})`;
        found.push(await single(`SELECT ${columns.join(", ")} FROM ${from} WHERE ${column} = ?`, value));
      }
    }
    return found.flat();
  };
}

/**
 * The days whose lookup filter may hold `value` in `table`'s `column`, when the index has filters
 * for that lookup and they rule out any day: the walk's lookups (a key's edges, a job's records)
 * then read a day's file or two, not every day's. `undefined`: every day's.
 */
async function filteredDays(
  index: OpenedIndex,
  table: IndexTable,
  column: string,
  value: string,
): Promise<string[] | undefined> {
  const source = index.sources.get(table);
  if (!source || !isFilteredLookup(table, column)) return undefined;
  const filters = await index.filters();
  if (!filters) return undefined;
  const candidates = filters.daysWith(table, value, source.days);
  return candidates.length === source.days.length ? undefined : candidates;
}

/**
 * Runs one-value lookups' SQL one at a time (a prepared statement holds one value bound): with
 * `prepare`, as a statement prepared once per text, since a walk asks the same few texts over
 * every day's files a value at a time and would otherwise bind the view each time
 * (docs/benchmarks.md, "impact at its bound"); without, once (a text naming a day's file or two).
 */
function serialRuns(
  connection: DuckDBConnection,
): (sql: string, value: string, options?: { prepare: true }) => Promise<Array<Record<string, unknown>>> {
  const statements = new Map<string, Promise<DuckDBPreparedStatement>>();
  let queue: Promise<unknown> = Promise.resolve();
  return (sql, value, options) => {
    const run = queue.then(async () => {
      if (!options?.prepare) return rowsOf(connection, sql, [value]);
      const statement = statements.get(sql) ?? connection.prepare(sql);
      statements.set(sql, statement);
      const prepared = await statement;
      prepared.bindVarchar(1, value);
      const reader = await prepared.runAndReadAll();
      return reader.getRowObjectsJS() as Array<Record<string, unknown>>;
    });
    queue = run.catch(() => undefined);
    return run;
  };
}

async function rowsOf(
  connection: DuckDBConnection,
  sql: string,
  params: DuckDBValue[],
): Promise<Array<Record<string, unknown>>> {
  const reader = await connection.runAndReadAll(sql, params);
  return reader.getRowObjectsJS() as Array<Record<string, unknown>>;
}

/**
 * What one table's view selects, over `files` (some or all of `source`'s days' files): their rows,
 * less the rows of the jobs read fresh, plus theirs (`source.pendingFile`). Its columns are the
 * table's (`INDEX_COLUMNS`); where the table has columns added since its first files
 * (`LATER_COLUMNS`), they are matched by name, and a file indexed before one existed
 * (`flows.redacted`) gives NULL there. The other tables' files are read as written: matching by
 * name makes each query read every file's schema (docs/benchmarks.md, "impact at its bound").
 * With no file at all, it is empty.
 */
function sourceSql(table: IndexTable, source: TableSource, files: readonly string[]): string {
  const columns = INDEX_COLUMNS[table].map(
    ({ name, type }) => `CAST(NULL AS ${type === "INT32" ? "INTEGER" : "VARCHAR"}) AS ${name}`,
  );
  const parts = [`SELECT ${columns.join(", ")} WHERE false`];
  const list = (values: readonly string[]) =>
    values.map((value) => `'${value.replaceAll("'", "''")}'`).join(", ");
  const byName = LATER_COLUMNS[table] ? ", union_by_name = true" : "";
  const read = (some: readonly string[]) =>
    `SELECT * FROM read_parquet([${list(some)}], hive_partitioning = false${byName})`;
  if (files.length > 0) {
    const replaced = source.freshJobs.length > 0 ? ` WHERE job NOT IN (${list(source.freshJobs)})` : "";
    parts.push(`${read(files)}${replaced}`);
  }
  if (source.pendingFile) parts.push(read([source.pendingFile]));
  return parts.join(" UNION ALL BY NAME ");
}
