import {
  AthenaClient,
  type ColumnInfo,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  type QueryExecutionStatus,
  type Row,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from "@aws-sdk/client-athena";
import { InvalidInput, VoxtrailError } from "@voxtrail/core";
import {
  ALL_RECORDS_SQL,
  BOUNDARIES_SQL,
  IMPACT_RECORDS_SQL,
  type IndexEngine,
  TRACE_RECORDS_SQL,
} from "@voxtrail/lineage/edge-index";

/** An Athena query ended `FAILED`: the message is Athena's reason, with the parameters masked. */
export class AthenaQueryFailed extends VoxtrailError {
  constructor(
    message: string,
    /** Athena's own word on whether running the query again may help (`AthenaError.Retryable`). */
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** An Athena query ended `CANCELLED`: stopped by someone else, or by the caller's abort signal. */
export class AthenaQueryCancelled extends VoxtrailError {
  readonly retryable = false;
}

/** An Athena query had not ended when the caller stopped waiting: it was stopped (StopQueryExecution). */
export class AthenaQueryTimedOut extends VoxtrailError {
  readonly retryable = false;
}

/** An Athena API call failed (refused, throttled past the SDK's retries, unreachable). */
export class AthenaRequestFailed extends VoxtrailError {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Athena's results did not have the shape of a `SELECT`'s (no column metadata, no header row). */
export class AthenaResultUnreadable extends VoxtrailError {
  readonly retryable = false;
}

/** Where a query is, as {@link AthenaIndexOptions.onProgress} hears it. */
export interface AthenaQueryProgress {
  /** What the query answers: `trace`, `impact`, `boundaries`, `all-records`, or `index`. */
  purpose: string;
  executionId: string;
  /** Athena's state: `QUEUED`, `RUNNING`, `SUCCEEDED` (then once per page of results read). */
  state: string;
  elapsedMs: number;
  /** Rows read so far, once results are being read. */
  rows?: number;
}

/** Options of {@link openAthenaIndex}. */
export interface AthenaIndexOptions {
  /** The client to call Athena with (its region and credentials); a default client otherwise. */
  client?: AthenaClient;
  /** The Glue database holding the tables `edges`, `flows`, `records` and `jobs`. */
  database: string;
  /** The workgroup to run in: its settings say where results go (the stage bucket's prefix). */
  workgroup: string;
  /** First wait between polls of a query's state (default 200 ms); it doubles up to `maxPollMs`. */
  pollMs?: number;
  /** Longest wait between polls (default 2000 ms). */
  maxPollMs?: number;
  /** How long a query may take before it is stopped and the answer is an error (default 5 minutes). */
  timeoutMs?: number;
  /** Rows asked for per page of results (1 to 1000, Athena's maximum and the default). */
  pageSize?: number;
  /** Aborting stops the query running (StopQueryExecution), and the answer is an error. */
  signal?: AbortSignal;
  /** Told of every poll, and of every page of results read. */
  onProgress?: (progress: AthenaQueryProgress) => void;
}

/** The index asked through Athena; `close` releases the client if this created it. */
export interface AthenaIndex extends IndexEngine {
  close(): Promise<void>;
}

/** Longest execution parameter Athena accepts (`ExecutionParameters` members are 1 to 1024 characters). */
export const ATHENA_PARAMETER_MAX_LENGTH = 1024;

/** Athena's largest page of `GetQueryResults`. */
const ATHENA_MAX_PAGE = 1000;

const PURPOSES = new Map([
  [TRACE_RECORDS_SQL, "trace"],
  [IMPACT_RECORDS_SQL, "impact"],
  [BOUNDARIES_SQL, "boundaries"],
  [ALL_RECORDS_SQL, "all-records"],
]);

/**
 * Opens the lineage edge index as Athena sees it (the Glue tables over the index's Parquet files):
 * each `query` starts the same SQL text DuckDB runs, with each `?` bound by an execution parameter,
 * polls until it ends, and reads its results page by page into rows keyed by column name (varchar
 * as strings, integers and doubles as numbers, booleans as booleans, NULL as `null`). Athena reads
 * an execution parameter as a SQL literal, so each string is sent quoted (`'it''s'`).
 *
 * Errors are named, and never carry a parameter (a caller's key): they name the query's purpose
 * and execution id.
 *
 * @example
 * const index = openAthenaIndex({ database: "voxtrail_lineage", workgroup: "voxtrail-lineage" });
 * try { console.log(await traceFromIndex(index, key)); } finally { await index.close(); }
 */
export function openAthenaIndex(options: AthenaIndexOptions): AthenaIndex {
  const client = options.client ?? new AthenaClient({});
  const pageSize = options.pageSize ?? ATHENA_MAX_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > ATHENA_MAX_PAGE) {
    throw new InvalidInput(`pageSize must be a whole number from 1 to ${ATHENA_MAX_PAGE}`);
  }
  const settings: QuerySettings = {
    client,
    database: options.database,
    workgroup: options.workgroup,
    pollMs: options.pollMs ?? 200,
    maxPollMs: options.maxPollMs ?? 2000,
    timeoutMs: options.timeoutMs ?? 5 * 60 * 1000,
    pageSize,
    signal: options.signal,
    onProgress: options.onProgress,
  };
  return {
    query: (sql, params) => runQuery(settings, sql, params),
    async close() {
      if (!options.client) client.destroy();
    },
  };
}

/**
 * A string as a Trino/Athena SQL literal: in single quotes, each `'` doubled (backslashes are not
 * escapes in Trino). What an execution parameter holding a string must be.
 *
 * @example
 * sqlStringLiteral("o'brien.wav"); // "'o''brien.wav'"
 */
export function sqlStringLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

interface QuerySettings {
  client: AthenaClient;
  database: string;
  workgroup: string;
  pollMs: number;
  maxPollMs: number;
  timeoutMs: number;
  pageSize: number;
  signal: AbortSignal | undefined;
  onProgress: ((progress: AthenaQueryProgress) => void) | undefined;
}

async function runQuery(
  settings: QuerySettings,
  sql: string,
  params: readonly string[],
): Promise<Array<Record<string, unknown>>> {
  const purpose = PURPOSES.get(sql) ?? "index";
  const literals = params.map(sqlStringLiteral);
  for (const [index, literal] of literals.entries()) {
    if (literal.length > ATHENA_PARAMETER_MAX_LENGTH) {
      throw new InvalidInput(
        `parameter ${index + 1} of the ${purpose} query is ${literal.length} characters as a SQL literal; ` +
          `Athena accepts at most ${ATHENA_PARAMETER_MAX_LENGTH}`,
      );
    }
  }
  const { client, signal } = settings;
  if (signal?.aborted) {
    throw new AthenaQueryCancelled(`the ${purpose} query was not started: the caller aborted`, {
      cause: signal.reason,
    });
  }
  const started = Date.now();
  const { QueryExecutionId: executionId } = await call("StartQueryExecution", purpose, () =>
    client.send(
      new StartQueryExecutionCommand({
        QueryString: sql,
        QueryExecutionContext: { Database: settings.database },
        WorkGroup: settings.workgroup,
        // Athena refuses an empty list: a query without parameters sends none.
        ...(literals.length > 0 ? { ExecutionParameters: literals } : {}),
      }),
    ),
  );
  if (!executionId) throw new AthenaResultUnreadable(`Athena started the ${purpose} query without an id`);
  const query: RunningQuery = { settings, purpose, executionId, started, params };
  let ended = false;
  try {
    const status = await waitForEnd(query);
    ended = true;
    endedOrThrow(query, status);
    return await readResults(query);
  } catch (error) {
    // Timed out, aborted, or no longer able to ask: the query must not run on unwatched.
    if (!ended) await stopQuietly(query);
    throw error;
  }
}

interface RunningQuery {
  settings: QuerySettings;
  purpose: string;
  executionId: string;
  started: number;
  params: readonly string[];
}

/** Polls the query's state, backing off, until it ends; a named error on timeout or abort. */
async function waitForEnd(query: RunningQuery): Promise<QueryExecutionStatus> {
  const { settings, purpose, executionId } = query;
  const deadline = query.started + settings.timeoutMs;
  let delay = settings.pollMs;
  for (;;) {
    const { QueryExecution } = await call("GetQueryExecution", purpose, () =>
      settings.client.send(new GetQueryExecutionCommand({ QueryExecutionId: executionId })),
    );
    const status = QueryExecution?.Status ?? {};
    const state = status.State ?? "UNKNOWN";
    settings.onProgress?.({ purpose, executionId, state, elapsedMs: Date.now() - query.started });
    if (state === "SUCCEEDED" || state === "FAILED" || state === "CANCELLED") return status;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new AthenaQueryTimedOut(
        `the ${purpose} query (Athena execution ${executionId}) had not ended after ` +
          `${settings.timeoutMs} ms; it was stopped`,
      );
    }
    await sleep(Math.min(delay, left), settings.signal).catch((reason: unknown) => {
      throw new AthenaQueryCancelled(
        `the ${purpose} query (Athena execution ${executionId}) was stopped: the caller aborted`,
        { cause: reason },
      );
    });
    delay = Math.min(delay * 2, settings.maxPollMs);
  }
}

/** Returns when the query succeeded; a named error when it failed or was cancelled. */
function endedOrThrow(query: RunningQuery, status: QueryExecutionStatus): void {
  const { purpose, executionId } = query;
  if (status.State === "SUCCEEDED") return;
  const reason = masked(status.StateChangeReason ?? status.AthenaError?.ErrorMessage ?? "", query.params);
  const because = reason ? `: ${reason}` : "";
  if (status.State === "CANCELLED") {
    throw new AthenaQueryCancelled(
      `the ${purpose} query (Athena execution ${executionId}) was cancelled${because}`,
    );
  }
  throw new AthenaQueryFailed(
    `the ${purpose} query (Athena execution ${executionId}) failed${because}`,
    status.AthenaError?.Retryable ?? false,
  );
}

/** Every page of the query's results, as rows keyed by column name; page 1 begins with the header. */
async function readResults(query: RunningQuery): Promise<Array<Record<string, unknown>>> {
  const { settings, purpose, executionId } = query;
  const rows: Array<Record<string, unknown>> = [];
  let columns: ColumnInfo[] | undefined;
  let nextToken: string | undefined;
  do {
    const page = await call("GetQueryResults", purpose, () =>
      settings.client.send(
        new GetQueryResultsCommand({
          QueryExecutionId: executionId,
          MaxResults: settings.pageSize,
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
      ),
    );
    const first = columns === undefined;
    columns ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo;
    if (!columns) {
      throw new AthenaResultUnreadable(
        `Athena's results of the ${purpose} query (execution ${executionId}) have no column metadata`,
      );
    }
    let data: Row[] = page.ResultSet?.Rows ?? [];
    if (first) {
      const header = data[0]?.Data?.map((datum) => datum.VarCharValue);
      if (!header || header.join("\u0000") !== columns.map((column) => column.Name).join("\u0000")) {
        throw new AthenaResultUnreadable(
          `Athena's results of the ${purpose} query (execution ${executionId}) do not begin with a header row`,
        );
      }
      data = data.slice(1);
    }
    for (const row of data) rows.push(rowObject(columns, row));
    nextToken = page.NextToken;
    settings.onProgress?.({
      purpose,
      executionId,
      state: "SUCCEEDED",
      elapsedMs: Date.now() - query.started,
      rows: rows.length,
    });
  } while (nextToken);
  return rows;
}

/** One row as an object: each value converted by its column's type (a missing value is NULL). */
function rowObject(columns: readonly ColumnInfo[], row: Row): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    object[column.Name ?? `_col${index}`] = fromAthena(
      row.Data?.[index]?.VarCharValue,
      column.Type ?? "varchar",
    );
  });
  return object;
}

/**
 * A value as Athena returns it (text) as the column's type says: integers and floating point as
 * numbers (a bigint beyond 2^53 as a bigint), booleans as booleans; decimals, dates, times and
 * everything else stay text, as written.
 */
function fromAthena(value: string | undefined, type: string): unknown {
  if (value === undefined) return null;
  switch (type.toLowerCase().replace(/\(.*$/, "")) {
    case "tinyint":
    case "smallint":
    case "integer":
    case "int":
      return Number(value);
    case "bigint": {
      const number = Number(value);
      return Number.isSafeInteger(number) ? number : BigInt(value);
    }
    case "double":
    case "real":
    case "float":
      return Number(value);
    case "boolean":
      return value === "true";
    default:
      return value;
  }
}

/** Athena's reason with every parameter (a caller's key) replaced by its position. */
function masked(reason: string, params: readonly string[]): string {
  const order = params
    .map((value, index) => ({ value, index }))
    .filter(({ value }) => value.length > 0)
    .sort((a, b) => b.value.length - a.value.length);
  let text = reason;
  for (const { value, index } of order) {
    text = text.replaceAll(sqlStringLiteral(value), `<parameter ${index + 1}>`);
    text = text.replaceAll(value, `<parameter ${index + 1}>`);
  }
  return text;
}

/** Stops the query, best effort: the answer is already an error, and this must not replace it. */
async function stopQuietly(query: RunningQuery): Promise<void> {
  await query.settings.client
    .send(new StopQueryExecutionCommand({ QueryExecutionId: query.executionId }))
    .catch(() => undefined);
}

/** An Athena call; its failure as a named error naming the operation and purpose only. */
async function call<T>(operation: string, purpose: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    const fault = (error as { $fault?: string; $retryable?: unknown }) ?? {};
    const retryable =
      fault.$retryable !== undefined || fault.$fault === "server" || name === "TooManyRequestsException";
    throw new AthenaRequestFailed(
      `Athena ${operation} for the ${purpose} query failed (${name})`,
      retryable,
      {
        cause: error,
      },
    );
  }
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
