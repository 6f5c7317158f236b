import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { type ColumnSource, parquetWriteBuffer } from "hyparquet-writer";
import type { EdgeRow, FlowRow, IndexRows, IndexTable, JobRow, RecordRow } from "./index-rows";

type Column = { name: string; type: "STRING" | "INT32"; lookup?: true };

/**
 * How one field of a row is stored: a Parquet `STRING` or `INT32` (number fields only), or a
 * `LOOKUP`, a STRING column questions select by equality.
 */
type ColumnKinds<Row> = { [Field in keyof Row]-?: Row[Field] extends number ? "INT32" : "STRING" | "LOOKUP" };

/** A table's columns from its row type's fields (every one, no other), in the order given. */
function columns<Row>(kinds: ColumnKinds<Row>): readonly Column[] {
  return Object.entries<"STRING" | "INT32" | "LOOKUP">(kinds).map(([name, kind]) =>
    kind === "LOOKUP" ? { name, type: "STRING", lookup: true } : { name, type: kind },
  );
}

/**
 * The columns of each table, in file order. `lookup` columns are the ones questions select by
 * equality: they get a Parquet bloom filter, so an engine skips row groups that cannot match.
 */
export const INDEX_COLUMNS: Record<IndexTable, readonly Column[]> = {
  edges: columns<EdgeRow>({
    job: "STRING",
    record_key: "LOOKUP",
    stage: "STRING",
    attempt: "INT32",
    outcome: "STRING",
    started_at: "STRING",
    role: "STRING",
    key: "LOOKUP",
    uri: "LOOKUP",
    sha256: "LOOKUP",
    kind: "STRING",
  }),
  flows: columns<FlowRow>({
    job: "STRING",
    record_key: "STRING",
    started_at: "STRING",
    kind: "STRING",
    boundary: "STRING",
    boundary_json: "STRING",
    provider: "STRING",
    source: "STRING",
    entered: "INT32",
    refused: "INT32",
    redacted: "STRING",
  }),
  records: columns<RecordRow>({
    job: "LOOKUP",
    record_key: "STRING",
    record_sha256: "STRING",
    started_at: "STRING",
    record: "STRING",
  }),
  jobs: columns<JobRow>({
    job: "LOOKUP",
    day: "STRING",
    summary_modified: "STRING",
    records: "INT32",
  }),
};

/**
 * The columns added to a table after its first files were written: a file indexed before one
 * existed lacks it, so an engine reads such a table's files by column name (DuckDB's
 * `union_by_name`, which costs each query a look at every file's schema). Every file of the other
 * tables holds all their columns.
 */
export const LATER_COLUMNS: Partial<Record<IndexTable, readonly string[]>> = { flows: ["redacted"] };

/**
 * Rows per row group, by table: small enough that a lookup reads little, large enough to compress
 * well. A walk's lookups (a key's edges, a job's records) read a day's file or two (the lookup
 * filters rule out the rest), sorted by what they look up, so the row groups' statistics rule out
 * all but one, whose column a lookup decompresses whole: 2,000 edges, 250 records (each a whole
 * activity record); docs/benchmarks.md, "Lookup filters", says what one row group a day cost. A
 * lookup across every day's files (a name as a uri, an index without filters) pays for more row
 * groups.
 */
const ROW_GROUP_ROWS: Record<IndexTable, number> = {
  edges: 2_000,
  flows: 20_000,
  records: 250,
  jobs: 20_000,
};

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
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize: ROW_GROUP_ROWS[table] }));
}

/**
 * Reads a table file written by {@link tableParquet} back into rows (hyparquet, pure JavaScript):
 * what compaction merges new jobs into. A column the file was written without (added since, as
 * `flows.redacted`) reads as "" (0 for a number).
 */
export async function readTableParquet<T extends IndexTable>(
  table: T,
  bytes: Uint8Array,
): Promise<IndexRows[T]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const inFile = new Set(parquetMetadata(file).schema.map((element) => element.name));
  const [present, missing] = [true, false].map((has) =>
    INDEX_COLUMNS[table].filter((column) => inFile.has(column.name) === has),
  ) as [Column[], Column[]];
  const rows = await parquetReadObjects({ file, columns: present.map((column) => column.name) });
  for (const row of rows) for (const column of missing) row[column.name] = column.type === "INT32" ? 0 : "";
  return rows as unknown as IndexRows[T];
}

/** The content type the index's files are stored with. */
export const PARQUET_CONTENT_TYPE = "application/vnd.apache.parquet";
