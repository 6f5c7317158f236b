/**
 * `@voxtrail/cli/lineage-index`: the engines that answer lineage questions from the edge index,
 * DuckDB over the store's Parquet files and Athena over the stage's Glue tables; where a local
 * store's proven index files are remembered.
 */
export { type AthenaIndex, type AthenaQueryProgress, openAthenaIndex } from "./athena-index";
export { type DuckDbIndex, openDuckDbIndex } from "./duckdb-index";
export { verifiedFilesPath } from "./verified-files";
