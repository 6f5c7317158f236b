/**
 * The lineage index's Athena catalog as the stacks declare it (stacks/lineage-index.ts): the Glue
 * tables' columns, partition projection and symlink formats, and the stage's database and
 * workgroup names. No Pulumi here, so tests read it as it is.
 */
import { LINEAGE_ATHENA_PREFIX, type LINEAGE_INDEX_TABLES } from "./permissions";

/**
 * The first day the tables project (`projection.day.range` is this day to `NOW`, in UTC as Athena
 * projects dates). Days before it are never read: no stage ran a job before it. A query without a
 * `day` predicate lists every projected day's symlink folder, so the range starts no earlier.
 */
export const LINEAGE_INDEX_FIRST_DAY = "2026-01-01";

/**
 * The most a single query may scan before Athena cancels it (the workgroup's
 * `BytesScannedCutoffPerQuery`): 10 GiB, about $0.05 at Athena's $5 per TB, far above what a
 * question over the index reads (the edges of 10,000 jobs take ~6.6 MB).
 */
export const ATHENA_BYTES_SCANNED_CUTOFF = 10 * 1024 ** 3;

/** One table of the index. */
export type LineageIndexTable = (typeof LINEAGE_INDEX_TABLES)[number];

/** A Glue column: Hive's type for the Parquet column (STRING as `string`, INT32 as `int`). */
type GlueColumn = { name: string; type: "string" | "int" };

const string = (name: string): GlueColumn => ({ name, type: "string" });
const int = (name: string): GlueColumn => ({ name, type: "int" });

/**
 * Each table's columns as Glue declares them: the columns of its Parquet files
 * (packages/lineage/src/edge-index/index-tables.ts, `INDEX_COLUMNS`; test/stacks checks they
 * agree), in file order, except the `jobs` table's `day`: it is the partition key of every table,
 * and Hive refuses a partition key that is also a column. A job's rows are in its day's partition,
 * so the partition value is the `day` the file holds.
 */
export const LINEAGE_INDEX_COLUMNS: Record<LineageIndexTable, readonly GlueColumn[]> = {
  edges: [
    string("job"),
    string("record_key"),
    string("stage"),
    int("attempt"),
    string("outcome"),
    string("started_at"),
    string("role"),
    string("key"),
    string("uri"),
    string("sha256"),
    string("kind"),
  ],
  flows: [
    string("job"),
    string("record_key"),
    string("started_at"),
    string("kind"),
    string("boundary"),
    string("boundary_json"),
    string("provider"),
    string("source"),
    int("entered"),
    int("refused"),
    string("redacted"),
  ],
  records: [
    string("job"),
    string("record_key"),
    string("record_sha256"),
    string("started_at"),
    string("record"),
  ],
  jobs: [string("job"), string("summary_modified"), int("records")],
};

/** The partition key of every table: the UTC day a job's first attempt started, `yyyy-MM-dd`. */
export const LINEAGE_INDEX_PARTITION_KEY = "day";

/** How Athena reads a table: each partition's folder holds a text file naming its Parquet file. */
export const SYMLINK_TABLE_FORMAT = {
  inputFormat: "org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat",
  outputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
  serializationLibrary: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
} as const;

/**
 * The stage's Glue database name: lowercase letters, digits and underscores only (Athena's rule for
 * database names), from the app and stage.
 *
 * @example
 * lineageIndexDatabaseName("voxtrail", "pr-12"); // "voxtrail_pr_12_lineage"
 */
export function lineageIndexDatabaseName(app: string, stage: string): string {
  return `${app}_${stage}_lineage`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

/**
 * The stage's Athena workgroup name (letters, digits, `.`, `_`, `-`).
 *
 * @example
 * lineageIndexWorkgroupName("voxtrail", "dev"); // "voxtrail-dev-lineage"
 */
export function lineageIndexWorkgroupName(app: string, stage: string): string {
  return `${app}-${stage}-lineage`.replace(/[^A-Za-z0-9._-]/g, "-");
}

/**
 * The table properties of one table: partition projection on `day` (type date, one day apart,
 * {@link LINEAGE_INDEX_FIRST_DAY} to NOW) and the location of each day, the table's symlink folder
 * for that day ("Partition projection with Amazon Athena", "Setting up partition projection":
 * `storage.location.template`, one placeholder per partition column, ending in `/`).
 */
export function lineageIndexTableParameters(
  bucket: string,
  table: LineageIndexTable,
): Record<string, string> {
  const key = LINEAGE_INDEX_PARTITION_KEY;
  return {
    EXTERNAL: "TRUE",
    classification: "parquet",
    "projection.enabled": "true",
    [`projection.${key}.type`]: "date",
    [`projection.${key}.format`]: "yyyy-MM-dd",
    [`projection.${key}.range`]: `${LINEAGE_INDEX_FIRST_DAY},NOW`,
    [`projection.${key}.interval`]: "1",
    [`projection.${key}.interval.unit`]: "DAYS",
    "storage.location.template": `${lineageIndexTableLocation(bucket, table)}${key}=\${${key}}/`,
  };
}

/** The folder of a table's symlink folders: the table's location. */
export function lineageIndexTableLocation(bucket: string, table: LineageIndexTable): string {
  return `s3://${bucket}/${LINEAGE_ATHENA_PREFIX}${table}/`;
}
