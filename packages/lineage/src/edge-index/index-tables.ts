import { parquetReadObjects } from "hyparquet";
import { type ColumnSource, parquetWriteBuffer } from "hyparquet-writer";
import type { IndexRows, IndexTable } from "./index-rows";

type Column = { name: string; type: "STRING" | "INT32"; lookup?: true };

/**
 * The columns of each table, in file order. `lookup` columns are the ones questions select by
 * equality: they get a Parquet bloom filter, so an engine skips row groups that cannot match.
 */
export const INDEX_COLUMNS: Record<IndexTable, readonly Column[]> = {
  edges: [
    { name: "job", type: "STRING" },
    { name: "record_key", type: "STRING", lookup: true },
    { name: "stage", type: "STRING" },
    { name: "attempt", type: "INT32" },
    { name: "outcome", type: "STRING" },
    { name: "started_at", type: "STRING" },
    { name: "role", type: "STRING" },
    { name: "key", type: "STRING", lookup: true },
    { name: "uri", type: "STRING", lookup: true },
    { name: "sha256", type: "STRING", lookup: true },
    { name: "kind", type: "STRING" },
  ],
  flows: [
    { name: "job", type: "STRING" },
    { name: "record_key", type: "STRING" },
    { name: "started_at", type: "STRING" },
    { name: "kind", type: "STRING" },
    { name: "boundary", type: "STRING" },
    { name: "boundary_json", type: "STRING" },
    { name: "provider", type: "STRING" },
    { name: "source", type: "STRING" },
    { name: "entered", type: "INT32" },
    { name: "refused", type: "INT32" },
  ],
  records: [
    { name: "job", type: "STRING", lookup: true },
    { name: "record_key", type: "STRING" },
    { name: "record_sha256", type: "STRING" },
    { name: "started_at", type: "STRING" },
    { name: "record", type: "STRING" },
  ],
  jobs: [
    { name: "job", type: "STRING", lookup: true },
    { name: "day", type: "STRING" },
    { name: "summary_modified", type: "STRING" },
    { name: "records", type: "INT32" },
  ],
};

/** Rows per row group: small enough that a lookup reads little, large enough to compress well. */
const ROW_GROUP_ROWS = 20_000;

/**
 * One table's rows as a Parquet file (snappy, with statistics), written by hyparquet-writer, pure
 * JavaScript: what a Lambda function can carry without a native engine.
 *
 * @example
 * await store.put(key, tableParquet("edges", rows.edges), { contentType: PARQUET_CONTENT_TYPE });
 */
export function tableParquet<T extends IndexTable>(table: T, rows: IndexRows[T]): Uint8Array {
  const list = rows as unknown as Array<Record<string, unknown>>;
  const columnData: ColumnSource[] = INDEX_COLUMNS[table].map((column) => ({
    name: column.name,
    type: column.type,
    nullable: false,
    data: list.map((row) => row[column.name]) as ColumnSource["data"],
    ...(column.lookup ? { bloomFilter: true } : {}),
  }));
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize: ROW_GROUP_ROWS }));
}

/**
 * Reads a table file written by {@link tableParquet} back into rows (hyparquet, pure JavaScript):
 * what compaction merges new jobs into.
 */
export async function readTableParquet<T extends IndexTable>(
  table: T,
  bytes: Uint8Array,
): Promise<IndexRows[T]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const rows = await parquetReadObjects({ file, columns: INDEX_COLUMNS[table].map((column) => column.name) });
  return rows as unknown as IndexRows[T];
}

/** The content type the index's files are stored with. */
export const PARQUET_CONTENT_TYPE = "application/vnd.apache.parquet";
