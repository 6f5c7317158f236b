import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DuckDBConnection, DuckDBValue, listValue } from "@duckdb/node-api";
import type { ObjectStore } from "@voxtrail/core";
import {
  INDEX_COLUMNS,
  INDEX_TABLES,
  type IndexEngine,
  type IndexLookup,
  type IndexManifest,
  type IndexTable,
  latestManifest,
  pendingJobs,
  tableParquet,
} from "@voxtrail/lineage/edge-index";

/** The index opened in DuckDB: ask it, then close it (its temporary files go with it). */
export interface DuckDbIndex extends IndexEngine {
  manifest: IndexManifest;
  /** Jobs finished since the index was compacted, read from their summaries for this session. */
  pending: number;
  lookup: IndexLookup;
  close(): Promise<void>;
}

/**
 * Opens the store's lineage edge index in an in-memory DuckDB: the Parquet files the latest
 * manifest names (read in place from a directory store; from a bucket, fetched with the AWS SDK,
 * never DuckDB's own S3 extension, which downloads itself at run time), plus the rows of jobs
 * whose summaries were written since, which replace any rows the files hold for them. Resolves to
 * `undefined` when the store has no index. It answers `trace` and `impact` by lookups, a walk
 * driven from TypeScript (see `IndexEngine.lookup`).
 *
 * @example
 * const index = await openDuckDbIndex(store);
 * if (index) try { console.log(await traceFromIndex(index, key)); } finally { await index.close(); }
 */
export async function openDuckDbIndex(store: ObjectStore): Promise<DuckDbIndex | undefined> {
  const latest = await latestManifest(store);
  if (!latest) return undefined;
  const { manifest } = latest;
  // DuckDB (native) loads only for a store that has an index: an empty store's answer needs none.
  const duckdb = await import("@duckdb/node-api");
  const scratch = await mkdtemp(join(tmpdir(), "voxtrail-index-"));
  const instance = await duckdb.DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  const close = async () => {
    connection.closeSync();
    instance.closeSync();
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    const pending = await pendingJobs(store, manifest);
    for (const table of INDEX_TABLES) {
      const files = await Promise.all(
        Object.values(manifest.days).map((day) => localFile(store, day.files[table], scratch)),
      );
      const fresh = [...pending.rows.values()].flatMap((rows) => rows[table] as unknown[]);
      if (fresh.length > 0) {
        const file = join(scratch, `pending-${table}.parquet`);
        await writeFile(file, tableParquet(table, fresh as never));
        files.push(file);
      }
      await connection.run(viewSql(table, files, [...pending.rows.keys()], fresh.length > 0));
    }
    return {
      manifest,
      pending: pending.rows.size,
      close,
      query: (sql, params) => rowsOf(connection, sql, [...params]),
      lookup: lookupIn(connection, duckdb.listValue),
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

/** The lookups of the views over `connection` (see `IndexLookup`), lists made with DuckDB's `listValue`. */
function lookupIn(connection: DuckDBConnection, listOf: typeof listValue): IndexLookup {
  return async (table, column, values, columns) => {
    const select = `SELECT ${columns.join(", ")} FROM ${table} WHERE ${column}`;
    if (values.length > SINGLE_LOOKUPS)
      return rowsOf(connection, `${select} IN (SELECT unnest(?::VARCHAR[]))`, [listOf([...values])]);
    const found: Array<Array<Record<string, unknown>>> = [];
    for (const value of values) found.push(await rowsOf(connection, `${select} = ?`, [value]));
    return found.flat();
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
 * The view of one table: the index's files, less the rows of the jobs read fresh, plus theirs (in
 * the last file). With no file at all, an empty view of the table's columns.
 */
function viewSql(table: IndexTable, files: string[], freshJobs: string[], hasFresh: boolean): string {
  if (files.length === 0) {
    const columns = INDEX_COLUMNS[table].map(
      ({ name, type }) => `CAST(NULL AS ${type === "INT32" ? "INTEGER" : "VARCHAR"}) AS ${name}`,
    );
    return `CREATE VIEW ${table} AS SELECT ${columns.join(", ")} WHERE false`;
  }
  const list = (values: string[]) => values.map((value) => `'${value.replaceAll("'", "''")}'`).join(", ");
  const indexed = hasFresh ? files.slice(0, -1) : files;
  const parts: string[] = [];
  if (indexed.length > 0) {
    const replaced = freshJobs.length > 0 ? ` WHERE job NOT IN (${list(freshJobs)})` : "";
    parts.push(`SELECT * FROM read_parquet([${list(indexed)}], hive_partitioning = false)${replaced}`);
  }
  if (hasFresh)
    parts.push(`SELECT * FROM read_parquet([${list(files.slice(-1))}], hive_partitioning = false)`);
  return `CREATE VIEW ${table} AS ${parts.join(" UNION ALL ")}`;
}

/** A path DuckDB can read the object at: the file itself in a directory store, else a fetched copy. */
async function localFile(store: ObjectStore, key: string, scratch: string): Promise<string> {
  const uri = store.uri(key);
  if (uri.startsWith("file:")) return fileURLToPath(uri);
  const file = join(scratch, key.replaceAll("/", "_"));
  await writeFile(file, await store.getBytes(key));
  return file;
}
