import type { FunctionSize } from "@voxtrail/workflow";
import { type FunctionSettings, stageFunction } from "./function-settings";
import {
  ATHENA_BYTES_SCANNED_CUTOFF,
  LINEAGE_INDEX_COLUMNS,
  LINEAGE_INDEX_PARTITION_KEY,
  lineageIndexDatabaseName,
  lineageIndexTableLocation,
  lineageIndexTableParameters,
  lineageIndexWorkgroupName,
  SYMLINK_TABLE_FORMAT,
} from "./lineage-index-catalog";
import {
  ATHENA_RESULTS_PREFIX,
  LINEAGE_INDEX_TABLES,
  lineageIndexCompactorPermissions,
  lineageIndexReaderPermissions,
  policyDocument,
} from "./permissions";
import { scheduleTrustPolicy } from "./trust-policies";

/**
 * How often the compactor runs: an auditor's Athena answers lag the jobs by at most this much (a
 * run with nothing new reads the listing and the symlinks, and writes nothing).
 */
export const LINEAGE_INDEX_SCHEDULE = "rate(15 minutes)";

/**
 * The compactor's memory and timeout: a run holds the days it rewrites in memory (each day's rows
 * of the four tables, read back from Parquet and merged with the new jobs'), so memory grows with
 * a busy day's jobs; Lambda's longest timeout leaves room for a first run over a large backlog.
 */
export const LINEAGE_INDEX_COMPACTOR_SIZE: FunctionSize = { memory: "1024 MB", timeout: "900 seconds" };

/**
 * The lineage edge index in the cloud, for auditors asking through Athena:
 *
 * - The compactor, a function EventBridge Scheduler invokes every 15 minutes
 *   ({@link LINEAGE_INDEX_SCHEDULE}; packages/functions/src/lambda/compact-lineage-index.ts), with
 *   exactly `lineageIndexCompactorPermissions` and one execution at a time (reserved concurrency
 *   1: two compactions would only race for the same generation). Parquet is written by a pure
 *   JavaScript writer: no native engine in the bundle.
 * - A Glue database with the four tables `edges`, `flows`, `records` and `jobs`, created here (no
 *   crawler): symlink tables (`SymlinkTextInputFormat`, Parquet SerDe) partitioned by `day` with
 *   partition projection, each day's location the folder whose one file names that day's live
 *   Parquet file, so Athena never counts a superseded or orphaned file
 *   (packages/lineage/src/edge-index/athena-symlinks.ts).
 * - An Athena workgroup (engine version 3) whose settings override the client's: results under
 *   `athena-results/` in the stage's bucket, SSE-S3, a scan cutoff per query
 *   ({@link ATHENA_BYTES_SCANNED_CUTOFF}); stacks/storage.ts expires the results.
 * - `LineageIndexReader`, a managed policy to attach to auditors: the questions through that
 *   workgroup, and nothing else (`lineageIndexReaderPermissions`).
 *
 * @example
 * const { database, workgroup, readerPolicy } = lineageIndex({ bucket, settings });
 */
export function lineageIndex({ bucket, settings }: { bucket: sst.aws.Bucket; settings: FunctionSettings }) {
  const compactor = stageFunction("LineageIndexCompactor", settings, {
    entry: "compact-lineage-index",
    size: LINEAGE_INDEX_COMPACTOR_SIZE,
    callsCartesia: false,
    reservedConcurrency: 1,
    permissions: $util
      .all([settings.scope, bucket.name])
      .apply(([scope, bucketName]) =>
        lineageIndexCompactorPermissions({ partition: scope.partition, bucket: bucketName }),
      ),
  });
  const schedule = new sst.aws.CronV2("LineageIndex", {
    function: compactor,
    schedule: LINEAGE_INDEX_SCHEDULE,
    // Only EventBridge Scheduler may assume its role, for the account's default schedule group.
    transform: {
      role: { assumeRolePolicy: settings.scope.apply((scope) => JSON.stringify(scheduleTrustPolicy(scope))) },
    },
  });
  const database = new aws.glue.CatalogDatabase("LineageIndexDatabase", {
    name: lineageIndexDatabaseName($app.name, $app.stage),
    description: `The lineage edge index of voxtrail stage ${$app.stage}, for Athena`,
  });
  const tables = LINEAGE_INDEX_TABLES.map(
    (table) =>
      new aws.glue.CatalogTable(`LineageIndex${table[0]?.toUpperCase()}${table.slice(1)}Table`, {
        name: table,
        databaseName: database.name,
        description: `The lineage index's ${table}, read through its symlinks (live files only)`,
        tableType: "EXTERNAL_TABLE",
        parameters: bucket.name.apply((bucketName) => lineageIndexTableParameters(bucketName, table)),
        partitionKeys: [{ name: LINEAGE_INDEX_PARTITION_KEY, type: "string" }],
        storageDescriptor: {
          location: bucket.name.apply((bucketName) => lineageIndexTableLocation(bucketName, table)),
          inputFormat: SYMLINK_TABLE_FORMAT.inputFormat,
          outputFormat: SYMLINK_TABLE_FORMAT.outputFormat,
          serDeInfo: {
            serializationLibrary: SYMLINK_TABLE_FORMAT.serializationLibrary,
            parameters: { "serialization.format": "1" },
          },
          columns: LINEAGE_INDEX_COLUMNS[table].map((column) => ({ ...column })),
        },
      }),
  );
  const workgroup = new aws.athena.Workgroup("LineageIndexWorkgroup", {
    name: lineageIndexWorkgroupName($app.name, $app.stage),
    description: `Lineage questions of voxtrail stage ${$app.stage}`,
    // Named queries are an auditor's own notes: they do not keep a removed stage's workgroup.
    forceDestroy: true,
    configuration: {
      enforceWorkgroupConfiguration: true,
      publishCloudwatchMetricsEnabled: true,
      bytesScannedCutoffPerQuery: ATHENA_BYTES_SCANNED_CUTOFF,
      engineVersion: { selectedEngineVersion: "Athena engine version 3" },
      resultConfiguration: {
        outputLocation: $interpolate`s3://${bucket.name}/${ATHENA_RESULTS_PREFIX}`,
        encryptionConfiguration: { encryptionOption: "SSE_S3" },
        expectedBucketOwner: settings.scope.apply((scope) => scope.account),
      },
    },
  });
  const readerPolicy = new aws.iam.Policy("LineageIndexReader", {
    name: `${$app.name}-${$app.stage}-LineageIndexReader`,
    description: `Ask the lineage questions of voxtrail stage ${$app.stage} through Athena (workgroup ${lineageIndexWorkgroupName($app.name, $app.stage)}), and nothing else`,
    policy: $util
      .all([settings.scope, bucket.name, database.name, workgroup.name])
      .apply(([scope, bucketName, databaseName, workgroupName]) =>
        JSON.stringify(
          policyDocument(
            lineageIndexReaderPermissions({
              ...scope,
              bucket: bucketName,
              database: databaseName,
              workgroup: workgroupName,
            }),
          ),
        ),
      ),
  });
  return { compactor, schedule, database, tables, workgroup, readerPolicy };
}
