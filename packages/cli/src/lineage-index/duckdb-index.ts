import type { KeyObject } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBValue, listValue } from "@duckdb/node-api";
import { mapLimit, ObjectNotFound, type ObjectStore } from "@voxtrail/core";
import {
  checkIndexFile,
  INDEX_COLUMNS,
  INDEX_TABLES,
  type IndexEngine,
  type IndexLookup,
  type IndexManifest,
  type IndexProof,
  type IndexTable,
  isFilteredLookup,
  LATER_COLUMNS,
  LineageIndexTampered,
  type LookupFilters,
  lookupFiltersOf,
  pendingJobs,
  proveIndex,
  tableParquet,
} from "@voxtrail/lineage/answers";
import { statOf, VerifiedFiles } from "./verified-files";

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
 * the generation {@link proveIndex} chose names (read in place from a directory store; from a
 * bucket, fetched with the AWS SDK, never DuckDB's own S3 extension, which downloads itself at run
 * time), plus the rows of jobs whose summaries were written since, which replace any rows the files
 * hold for them. A proven generation's files are each hashed before DuckDB reads them (a directory
 * store's file not again while it is unchanged on disk since this machine hashed it:
 * {@link VerifiedFiles}), and one whose bytes differ from its manifest's sha256 (or is gone)
 * rejects with `LineageIndexTampered` naming it. Resolves to `undefined` when the store has no index. It answers `trace` and `impact`
 * by lookups, a walk driven from TypeScript (see `IndexEngine.lookup`).
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
    let unprovenFiles = 0;
    const check = proof.status === "proven";
    const verified = check && options.remember !== false ? await VerifiedFiles.load() : undefined;
    const sources = new Map<IndexTable, TableSource>();
    for (const table of tables) {
      const entries = Object.entries(manifest.days);
      const paths = await mapLimit(entries, 8, async ([day, entry]) => {
        const key = entry.files[table];
        if (!check) return localFile(store, key, scratch);
        const file = await checkedFile(store, { manifest, day, table }, scratch, verified);
        if (!file.proven) unprovenFiles += 1;
        return file.path;
      });
      const fresh = [...pending.rows.values()].flatMap((rows) => rows[table] as unknown[]);
      let pendingFile: string | undefined;
      if (fresh.length > 0) {
        pendingFile = join(scratch, `pending-${table}.parquet`);
        await writeFile(pendingFile, tableParquet(table, fresh as never));
      }
      const days = new Map(entries.map(([day], index) => [day, paths[index] as string]));
      const source: TableSource = { days, pendingFile, freshJobs: [...pending.rows.keys()] };
      sources.set(table, source);
      await connection.run(`CREATE VIEW ${table} AS ${sourceSql(table, source, paths)}`);
    }
    await verified?.save();
    return {
      manifest,
      proof,
      unprovenFiles,
      pending: pending.rows.size,
      close,
      query: (sql, params) => rowsOf(connection, sql, [...params]),
      lookup: lookupIn(connection, duckdb.listValue, {
        sources,
        // Read at the first lookup they answer: a question of the flows alone never reads them.
        filters: once(() => lookupFiltersOf(store, manifest, check)),
      }),
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Values up to which a lookup asks one query per value, which the files' statistics and bloom
 * filters answer without a scan (about 10 ms over 100 days of files); past it, one scan for them
 * all (100 to 300 ms).
 */
const SINGLE_LOOKUPS = 16;

/** What a table's view reads: each day's file, and the rows of the jobs read fresh (see {@link sourceSql}). */
interface TableSource {
  /** Day: the path DuckDB reads that day's file at. */
  days: Map<string, string>;
  /** The fresh jobs' rows, as a file; none when there are none. */
  pendingFile: string | undefined;
  /** The jobs read fresh, whose rows in the days' files are left out. */
  freshJobs: string[];
}

/** The files each table's view reads, and the generation's lookup filters (read once, when first asked). */
interface IndexFiles {
  sources: ReadonlyMap<IndexTable, TableSource>;
  filters: () => Promise<LookupFilters | undefined>;
}

/** `make`'s promise, made at the first call and given again at each later one. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** The lookups of the views over `connection` (see `IndexLookup`), lists made with DuckDB's `listValue`. */
function lookupIn(connection: DuckDBConnection, listOf: typeof listValue, index: IndexFiles): IndexLookup {
  const single = serialRuns(connection);
  return async (table, column, values, columns) => {
    const select = `SELECT ${columns.join(", ")} FROM ${table} WHERE ${column}`;
    if (values.length > SINGLE_LOOKUPS)
      return rowsOf(connection, `${select} IN (SELECT unnest(?::VARCHAR[]))`, [listOf([...values])]);
    const found: Array<Array<Record<string, unknown>>> = [];
    for (const value of values) {
      const files = await filteredFiles(index, table, column, value);
      const source = index.sources.get(table) as TableSource;
      if (files === undefined) found.push(await single(`${select} = ?`, value, { prepare: true }));
      else if (files.length > 0 || source.pendingFile) {
        const from = `(${sourceSql(table, source, files)})`;
        found.push(await single(`SELECT ${columns.join(", ")} FROM ${from} WHERE ${column} = ?`, value));
      }
    }
    return found.flat();
  };
}

/**
 * The files of the days whose lookup filter may hold `value` in `table`'s `column`, when the
 * index has filters for that lookup and they rule out any day: the walk's lookups (a key's edges, a
 * job's records) then read a day's file or two, not every day's. `undefined`: every day's.
 */
async function filteredFiles(
  index: IndexFiles,
  table: IndexTable,
  column: string,
  value: string,
): Promise<string[] | undefined> {
  const source = index.sources.get(table);
  if (!source || !isFilteredLookup(table, column)) return undefined;
  const filters = await index.filters();
  if (!filters) return undefined;
  const days = [...source.days.keys()];
  const candidates = filters.daysWith(table, value, days);
  if (candidates.length === days.length) return undefined;
  return candidates.map((day) => source.days.get(day) as string);
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

/** A path DuckDB can read the object at: the file itself in a directory store, else a fetched copy. */
async function localFile(store: ObjectStore, key: string, scratch: string): Promise<string> {
  const uri = store.uri(key);
  if (uri.startsWith("file:")) return fileURLToPath(uri);
  const file = join(scratch, key.replaceAll("/", "_"));
  await writeFile(file, await store.getBytes(key));
  return file;
}

/**
 * {@link localFile} for a file of a signed generation, checked against the sha256 its manifest
 * records before DuckDB reads it (`checkIndexFile`): a bucket's file as fetched, a directory
 * store's in place, unless `verified` remembers it hashed to that sha256 and unchanged since. A
 * file that differs, or is gone, rejects with `LineageIndexTampered` naming it. `proven` is false
 * for a file the manifest records no sha256 for (indexed before files were hashed).
 */
async function checkedFile(
  store: ObjectStore,
  at: { manifest: IndexManifest; day: string; table: IndexTable },
  scratch: string,
  verified: VerifiedFiles | undefined,
): Promise<{ path: string; proven: boolean }> {
  const key = at.manifest.days[at.day]?.files[at.table] as string;
  const expected = at.manifest.days[at.day]?.sha256?.[at.table];
  const uri = store.uri(key);
  try {
    if (!uri.startsWith("file:")) {
      const path = join(scratch, key.replaceAll("/", "_"));
      const bytes = await store.getBytes(key);
      const proven = checkIndexFile(at.manifest, at.day, at.table, bytes);
      await writeFile(path, bytes);
      return { path, proven };
    }
    const path = fileURLToPath(uri);
    if (expected === undefined) return { path, proven: false };
    const before = await statOf(path);
    if (verified?.has(path, expected, before)) return { path, proven: true };
    const bytes = await readFile(path);
    checkIndexFile(at.manifest, at.day, at.table, bytes);
    verified?.add(path, expected, before, await statOf(path), Date.now());
    return { path, proven: true };
  } catch (error) {
    if (error instanceof ObjectNotFound || (error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new LineageIndexTampered(
        `the lineage index file ${key}, which its signed manifest names, is gone`,
      );
    }
    throw error;
  }
}
