import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DuckDBConnection, DuckDBInstance, type DuckDBType, type DuckDBValue } from "@duckdb/node-api";
import type { ObjectStore } from "@voxtrail/core";
import { INDEX_COLUMNS, INDEX_TABLES, type IndexTable, latestManifest } from "@voxtrail/lineage/edge-index";
import { answer, readJsonRequest, ServiceError } from "@voxtrail/local/json-protocol";

/** How to start the stand-in. */
export interface AthenaStandInOptions {
  /** The store whose lineage edge index the Glue tables stand for (its latest manifest's files). */
  store: ObjectStore;
  /** The only Glue database it knows: a query in another fails, as in a missing schema. */
  database: string;
  /** The only workgroup it knows: a start in another is refused, as Athena refuses it. */
  workgroup: string;
  /** Polls that see a query `QUEUED` (default 1), then `RUNNING` (default 1), before it ends. */
  queuedPolls?: number;
  runningPolls?: number;
  /** The workgroup's result location, reported in each execution (default a stage bucket prefix). */
  outputLocation?: string;
}

/** One request it received: its operation, JSON body, HTTP status and answer. */
export interface AthenaCall {
  operation: string;
  body: Record<string, unknown>;
  /** `Date.now()` when it arrived. */
  at: number;
  status: number;
  response: Record<string, unknown>;
}

/** A running stand-in. */
export interface AthenaStandIn {
  /** Base URL to give an `AthenaClient` as its `endpoint`. */
  url: string;
  /** The requests received so far, of one operation or all. */
  calls(operation?: string): AthenaCall[];
  /** The state of an execution now (without counting as a poll). */
  state(executionId: string): string | undefined;
  /** The next query started ends `FAILED`, with `reason` as its `StateChangeReason`. */
  failNext(reason: string): void;
  /** The next query started never ends: `RUNNING` until StopQueryExecution cancels it. */
  hangNext(): void;
  close(): Promise<void>;
}

type Fault = { fail: string } | { hang: true };

interface Execution {
  id: string;
  token: string | undefined;
  query: string;
  database: string;
  workgroup: string;
  parameters: string[] | undefined;
  submitted: Date;
  completed?: Date;
  polls: number;
  fault: Fault | undefined;
  cancelled: boolean;
  /** Set once DuckDB has answered (or refused). */
  outcome?: { columns: AthenaColumn[]; rows: Array<Array<string | null>> } | { error: string };
}

interface AthenaColumn {
  name: string;
  type: string;
  precision: number;
  scale: number;
}

/**
 * A local Amazon Athena that speaks the service's wire protocol as the AWS SDK sends it (JSON 1.1:
 * `POST /`, `X-Amz-Target: AmazonAthena.<Operation>`) for `StartQueryExecution`,
 * `GetQueryExecution`, `GetQueryResults` and `StopQueryExecution`, and really runs the SQL: in
 * DuckDB, over views named like the Glue tables (`edges`, `flows`, `records`, `jobs`) of the
 * Parquet files the store's latest lineage index manifest names (read again at each start). What
 * it plays of Athena:
 *
 * - `ExecutionParameters` are SQL literals, each 1 to 1024 characters, at least one when present:
 *   a string must come quoted (`'it''s'`); an unquoted one fails the query, as Athena fails it.
 *   Literals it understands: quoted strings, numbers, `TRUE`/`FALSE`, `NULL`. Their count must be
 *   the statement's number of `?`.
 * - A query is `QUEUED`, then `RUNNING`, over a few polls of `GetQueryExecution` before it ends.
 * - Results come as Athena returns them: page 1 starts with a header row of the column names,
 *   every value is a `VarCharValue` string (a NULL is a datum without one), `ColumnInfo` carries
 *   Athena's type names (DuckDB's `HUGEINT` of a `sum` is reported `bigint`, as Trino types it);
 *   pages hold at most `MaxResults` rows (the header counts; 1000 at most) and end in its own
 *   `NextToken`.
 * - `ClientRequestToken` is honoured: the same token starts no second query.
 *
 * Not Athena: DuckDB's dialect and error messages, no scanned-bytes accounting, no result files,
 * and the tables are the manifest's files, where Glue tables would read every file under a prefix.
 *
 * @example
 * const athena = await startAthenaStandIn({ store, database: "lineage", workgroup: "lineage" });
 * const client = new AthenaClient({ endpoint: athena.url, region: "us-east-1", credentials });
 */
export async function startAthenaStandIn(options: AthenaStandInOptions): Promise<AthenaStandIn> {
  const queuedPolls = options.queuedPolls ?? 1;
  const runningPolls = options.runningPolls ?? 1;
  const outputLocation = options.outputLocation ?? "s3://voxtrail-stage/athena-results/";
  const scratch = await mkdtemp(join(tmpdir(), "voxtrail-athena-"));
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  const executions = new Map<string, Execution>();
  const byToken = new Map<string, string>();
  const faults: Fault[] = [];
  const calls: AthenaCall[] = [];
  // One statement at a time on the one connection: views are replaced before each query.
  let queue: Promise<unknown> = Promise.resolve();

  const stateOf = (execution: Execution): string => {
    if (execution.cancelled) return "CANCELLED";
    if (execution.polls <= queuedPolls) return "QUEUED";
    if (execution.polls <= queuedPolls + runningPolls || (execution.fault && "hang" in execution.fault))
      return "RUNNING";
    if (execution.fault && "fail" in execution.fault) return "FAILED";
    if (!execution.outcome) return "RUNNING";
    return "error" in execution.outcome ? "FAILED" : "SUCCEEDED";
  };

  const reasonOf = (execution: Execution): string | undefined => {
    if (execution.cancelled) return "Query cancelled by user";
    if (execution.fault && "fail" in execution.fault) return execution.fault.fail;
    return execution.outcome && "error" in execution.outcome ? execution.outcome.error : undefined;
  };

  const describe = (execution: Execution) => {
    const state = stateOf(execution);
    const ended = state === "SUCCEEDED" || state === "FAILED" || state === "CANCELLED";
    if (ended) execution.completed ??= new Date();
    const reason = state === "FAILED" || state === "CANCELLED" ? reasonOf(execution) : undefined;
    return {
      QueryExecutionId: execution.id,
      Query: execution.query,
      StatementType: "DML",
      SubstatementType: "SELECT",
      ResultConfiguration: { OutputLocation: `${outputLocation}${execution.id}.csv` },
      ResultReuseConfiguration: { ResultReuseByAgeConfiguration: { Enabled: false } },
      QueryExecutionContext: { Database: execution.database, Catalog: "awsdatacatalog" },
      Status: {
        State: state,
        SubmissionDateTime: execution.submitted.getTime() / 1000,
        ...(ended && execution.completed ? { CompletionDateTime: execution.completed.getTime() / 1000 } : {}),
        ...(reason !== undefined ? { StateChangeReason: reason } : {}),
        ...(state === "FAILED"
          ? { AthenaError: { ErrorCategory: 2, Retryable: false, ErrorMessage: reason } }
          : {}),
      },
      WorkGroup: execution.workgroup,
      EngineVersion: { SelectedEngineVersion: "AUTO", EffectiveEngineVersion: "Athena engine version 3" },
      ...(execution.parameters ? { ExecutionParameters: execution.parameters } : {}),
    };
  };

  const execute = (execution: Execution): void => {
    queue = queue.then(async () => {
      try {
        execution.outcome = await run(connection, options, scratch, execution);
      } catch (error) {
        execution.outcome = { error: error instanceof Error ? error.message : String(error) };
      }
    });
  };

  const find = (body: Record<string, unknown>): Execution => {
    const execution = executions.get(String(body.QueryExecutionId ?? ""));
    if (!execution) {
      throw new ServiceError(
        400,
        "InvalidRequestException",
        `QueryExecution ${String(body.QueryExecutionId)} was not found`,
      );
    }
    return execution;
  };

  const operations: Record<string, (body: Record<string, unknown>) => Record<string, unknown>> = {
    StartQueryExecution(body) {
      const query = body.QueryString;
      if (typeof query !== "string" || query.length === 0) {
        throw new ServiceError(400, "InvalidRequestException", "QueryString is required");
      }
      const workgroup = String(body.WorkGroup ?? "primary");
      if (workgroup !== options.workgroup) {
        throw new ServiceError(400, "InvalidRequestException", `WorkGroup ${workgroup} is not found.`);
      }
      const parameters = body.ExecutionParameters;
      if (parameters !== undefined) {
        if (!Array.isArray(parameters) || parameters.length === 0) {
          throw new ServiceError(
            400,
            "InvalidRequestException",
            "1 validation error detected: executionParameters must have length greater than or equal to 1",
          );
        }
        for (const value of parameters) {
          if (typeof value !== "string" || value.length < 1 || value.length > 1024) {
            throw new ServiceError(
              400,
              "InvalidRequestException",
              "1 validation error detected: each member of executionParameters must be 1 to 1024 characters",
            );
          }
        }
      }
      const token = typeof body.ClientRequestToken === "string" ? body.ClientRequestToken : undefined;
      const earlier = token === undefined ? undefined : executions.get(byToken.get(token) ?? "");
      if (earlier) {
        if (earlier.query !== query) {
          throw new ServiceError(400, "InvalidRequestException", "Idempotent parameters do not match");
        }
        return { QueryExecutionId: earlier.id };
      }
      const context = (body.QueryExecutionContext ?? {}) as { Database?: string };
      const execution: Execution = {
        id: randomUUID(),
        token,
        query,
        database: context.Database ?? "default",
        workgroup,
        parameters: parameters as string[] | undefined,
        submitted: new Date(),
        polls: 0,
        fault: faults.shift(),
        cancelled: false,
      };
      executions.set(execution.id, execution);
      if (token !== undefined) byToken.set(token, execution.id);
      if (!execution.fault) execute(execution);
      return { QueryExecutionId: execution.id };
    },
    GetQueryExecution(body) {
      const execution = find(body);
      execution.polls++;
      return { QueryExecution: describe(execution) };
    },
    StopQueryExecution(body) {
      const execution = find(body);
      const state = stateOf(execution);
      if (state === "QUEUED" || state === "RUNNING") execution.cancelled = true;
      return {};
    },
    GetQueryResults(body) {
      const execution = find(body);
      const state = stateOf(execution);
      if (state !== "SUCCEEDED" || !execution.outcome || "error" in execution.outcome) {
        const why = state === "FAILED" || state === "CANCELLED" ? (reasonOf(execution) ?? state) : undefined;
        throw new ServiceError(
          400,
          "InvalidRequestException",
          why ?? `Query has not yet finished. Current state: ${state}`,
        );
      }
      const max = body.MaxResults === undefined ? 1000 : Number(body.MaxResults);
      if (!Number.isInteger(max) || max < 1 || max > 1000) {
        throw new ServiceError(
          400,
          "InvalidRequestException",
          "1 validation error detected: maxResults must be from 1 to 1000",
        );
      }
      const offset = body.NextToken === undefined ? 0 : offsetOf(String(body.NextToken), execution.id);
      const { columns, rows } = execution.outcome;
      const all: Array<Array<string | null>> = [columns.map((column) => column.name), ...rows];
      const page = all.slice(offset, offset + max);
      const next = offset + max < all.length ? tokenOf(execution.id, offset + max) : undefined;
      return {
        UpdateCount: 0,
        ResultSet: {
          Rows: page.map((row) => ({
            Data: row.map((value) => (value === null ? {} : { VarCharValue: value })),
          })),
          ResultSetMetadata: { ColumnInfo: columns.map(columnInfo) },
        },
        ...(next ? { NextToken: next } : {}),
      };
    },
  };

  const server = createServer((req, res) => {
    const at = Date.now();
    let call: AthenaCall | undefined;
    readJsonRequest(req, "AmazonAthena")
      .then(({ operation, body }) => {
        call = { operation, body, at, status: 0, response: {} };
        calls.push(call);
        const handler = operations[operation];
        if (!handler) {
          throw new ServiceError(
            400,
            "UnknownOperationException",
            `this stand-in does not serve ${operation}`,
          );
        }
        return handler(body);
      })
      .then(
        (value) => {
          if (call) Object.assign(call, { status: 200, response: value });
          answer(res, 200, value);
        },
        (error: unknown) => {
          const [status, value] =
            error instanceof ServiceError
              ? [error.status, { __type: error.type, Message: error.message }]
              : [500, { __type: "InternalServerException", Message: "Internal failure" }];
          if (call) Object.assign(call, { status, response: value });
          answer(res, status, value);
        },
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: (operation) => calls.filter((call) => operation === undefined || call.operation === operation),
    state: (executionId) => {
      const execution = executions.get(executionId);
      return execution && stateOf(execution);
    },
    failNext: (reason) => void faults.push({ fail: reason }),
    hangNext: () => void faults.push({ hang: true }),
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await queue.catch(() => undefined);
      connection.closeSync();
      instance.closeSync();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** Runs one execution in DuckDB: the tables as the latest manifest has them, the parameters bound. */
async function run(
  connection: DuckDBConnection,
  options: AthenaStandInOptions,
  scratch: string,
  execution: Execution,
): Promise<{ columns: AthenaColumn[]; rows: Array<Array<string | null>> }> {
  if (execution.database !== options.database) {
    throw new Error(`SCHEMA_NOT_FOUND: Schema '${execution.database}' does not exist`);
  }
  await defineTables(connection, options.store, scratch);
  const prepared = await connection.prepare(execution.query);
  const literals = execution.parameters ?? [];
  if (prepared.parameterCount !== literals.length) {
    throw new Error(
      `Incorrect number of parameters: expected ${prepared.parameterCount} but found ${literals.length}`,
    );
  }
  const values = literals.map((literal, index) => {
    const parsed = parseLiteral(literal);
    if (!parsed.ok) {
      throw new Error(
        `INVALID_PARAMETER_USAGE: execution parameter ${index + 1} is not a SQL literal ` +
          `(a string parameter must be quoted, as 'value')`,
      );
    }
    return parsed.value;
  });
  if (values.length > 0) prepared.bind(values);
  const reader = await prepared.runAndReadAll();
  const columns = reader
    .columnNames()
    .map((name, index) => athenaColumn(name, reader.columnTypes()[index] as DuckDBType));
  const rows = reader.getRowsJS().map((row) =>
    row.map((value) => {
      if (value === null || value === undefined) return null;
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
    }),
  );
  return { columns, rows };
}

/** Replaces the views `edges`, `flows`, `records` and `jobs` with the latest manifest's files. */
async function defineTables(
  connection: DuckDBConnection,
  store: ObjectStore,
  scratch: string,
): Promise<void> {
  const manifest = (await latestManifest(store))?.manifest;
  for (const table of INDEX_TABLES) {
    const files = await Promise.all(
      Object.values(manifest?.days ?? {}).map((day) => localFile(store, day.files[table], scratch)),
    );
    await connection.run(`CREATE OR REPLACE VIEW ${table} AS ${tableSql(table, files)}`);
  }
}

function tableSql(table: IndexTable, files: string[]): string {
  if (files.length === 0) {
    const columns = INDEX_COLUMNS[table].map(
      ({ name, type }) => `CAST(NULL AS ${type === "INT32" ? "INTEGER" : "VARCHAR"}) AS ${name}`,
    );
    return `SELECT ${columns.join(", ")} WHERE false`;
  }
  const list = files.map((file) => `'${file.replaceAll("'", "''")}'`).join(", ");
  return `SELECT * FROM read_parquet([${list}], hive_partitioning = false)`;
}

async function localFile(store: ObjectStore, key: string, scratch: string): Promise<string> {
  const uri = store.uri(key);
  if (uri.startsWith("file:")) return fileURLToPath(uri);
  const file = join(scratch, key.replaceAll("/", "_"));
  await writeFile(file, await store.getBytes(key));
  return file;
}

/** An execution parameter read as the SQL literal Athena takes it for, or not a literal at all. */
function parseLiteral(text: string): { ok: true; value: DuckDBValue } | { ok: false } {
  const literal = text.trim();
  if (/^'(?:[^']|'')*'$/s.test(literal))
    return { ok: true, value: literal.slice(1, -1).replaceAll("''", "'") };
  if (/^[+-]?\d+$/.test(literal)) {
    const number = Number(literal);
    return { ok: true, value: Number.isSafeInteger(number) ? number : BigInt(literal) };
  }
  if (/^[+-]?(?:\d+\.\d*|\.\d+|\d+(?=e))(?:e[+-]?\d+)?$/i.test(literal))
    return { ok: true, value: Number(literal) };
  if (/^(?:true|false)$/i.test(literal)) return { ok: true, value: literal.toLowerCase() === "true" };
  if (/^null$/i.test(literal)) return { ok: true, value: null };
  return { ok: false };
}

/** A DuckDB result column as Athena (Trino) types it. */
function athenaColumn(name: string, type: DuckDBType): AthenaColumn {
  const duck = type.toString();
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duck);
  if (decimal) return { name, type: "decimal", precision: Number(decimal[1]), scale: Number(decimal[2]) };
  const known: Record<string, [string, number]> = {
    VARCHAR: ["varchar", 2147483647],
    BOOLEAN: ["boolean", 0],
    TINYINT: ["tinyint", 3],
    SMALLINT: ["smallint", 5],
    INTEGER: ["integer", 10],
    BIGINT: ["bigint", 19],
    // DuckDB sums integers into a HUGEINT; Trino into a bigint.
    HUGEINT: ["bigint", 19],
    FLOAT: ["real", 7],
    DOUBLE: ["double", 17],
    DATE: ["date", 0],
  };
  const [athena, precision] =
    known[duck] ?? (duck.startsWith("TIMESTAMP") ? ["timestamp", 3] : [duck.toLowerCase(), 0]);
  return { name, type: athena, precision, scale: 0 };
}

function columnInfo(column: AthenaColumn): Record<string, unknown> {
  return {
    CatalogName: "hive",
    SchemaName: "",
    TableName: "",
    Name: column.name,
    Label: column.name,
    Type: column.type,
    Precision: column.precision,
    Scale: column.scale,
    Nullable: "UNKNOWN",
    CaseSensitive: column.type === "varchar",
  };
}

function tokenOf(executionId: string, offset: number): string {
  return Buffer.from(JSON.stringify({ executionId, offset })).toString("base64url");
}

function offsetOf(token: string, executionId: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as {
      executionId?: unknown;
      offset?: unknown;
    };
    if (parsed.executionId === executionId && Number.isInteger(parsed.offset)) return parsed.offset as number;
  } catch {
    // Not one of its tokens: refused below.
  }
  throw new ServiceError(400, "InvalidRequestException", "The NextToken is not valid for this query");
}
