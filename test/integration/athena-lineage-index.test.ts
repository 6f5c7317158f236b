import { randomUUID } from "node:crypto";
import {
  AthenaClient,
  GetQueryExecutionCommand,
  type QueryExecutionState,
  StartQueryExecutionCommand,
} from "@aws-sdk/client-athena";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import {
  type AthenaQueryProgress,
  type DuckDbIndex,
  openAthenaIndex,
  openDuckDbIndex,
} from "@voxtrail/cli/lineage-index";
import { boundaries, impact, LineageGraph, readLineage, trace } from "@voxtrail/lineage";
import {
  ALL_RECORDS_SQL,
  BOUNDARIES_SQL,
  boundariesFromIndex,
  graphFromIndex,
  IMPACT_RECORDS_SQL,
  type IndexEngine,
  impactFromIndex,
  reindexLineage,
  TRACE_RECORDS_SQL,
  traceFromIndex,
} from "@voxtrail/lineage/edge-index";
import { type StageResources, stageParameterName } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type SyntheticJob,
  type SyntheticStore,
  syntheticStore,
  writeSyntheticJob,
} from "../../packages/lineage/test/synthetic-jobs";
import { runCli } from "../e2e/run-cli";
import { motoCliEnvironment, motoClientConfig } from "../setup/aws";
import { type AthenaCall, type AthenaStandIn, startAthenaStandIn } from "../support/athena-stand-in";

const DATABASE = "voxtrail_lineage";
const WORKGROUP = "voxtrail-lineage";
/** Rows per page asked for: small, so that every answer but the shortest spans pages. */
const PAGE_SIZE = 7;
const SHARED_SQL = [TRACE_RECORDS_SQL, IMPACT_RECORDS_SQL, BOUNDARIES_SQL, ALL_RECORDS_SQL];
const QUOTED_LITERAL = /^'(?:[^']|'')*'$/s;

let synthetic: SyntheticStore;
let jobs: SyntheticJob[];
/** A job whose source's name holds a quote: its parameters must be escaped to be found. */
let quoted: SyntheticJob;
let duck: DuckDbIndex;
let standIn: AthenaStandIn;
let client: AthenaClient;
let athena: IndexEngine & { close(): Promise<void> };
let records: LineageGraph;

beforeAll(async () => {
  synthetic = await syntheticStore("voxtrail-athena-index-", 20);
  const { store } = synthetic;
  // Five more jobs a day later, so the index has two days of files and `since` has a cut.
  const later: SyntheticJob[] = [];
  for (let index = 21; index <= 25; index++) {
    const name = index === 25 ? "call-o'brien.wav" : undefined;
    later.push(await writeSyntheticJob(store, index, Date.UTC(2026, 0, 2), true, name));
  }
  jobs = [...synthetic.jobs, ...later];
  quoted = later.at(-1) as SyntheticJob;
  await reindexLineage(store);
  duck = (await openDuckDbIndex(store)) as DuckDbIndex;
  standIn = await startAthenaStandIn({ store, database: DATABASE, workgroup: WORKGROUP, runningPolls: 2 });
  client = new AthenaClient({
    endpoint: standIn.url,
    region: "us-east-1",
    credentials: { accessKeyId: "athena-stand-in", secretAccessKey: "athena-stand-in" },
  });
  athena = openAthenaIndex({
    client,
    database: DATABASE,
    workgroup: WORKGROUP,
    pollMs: 5,
    maxPollMs: 20,
    pageSize: PAGE_SIZE,
  });
  records = LineageGraph.of(await readLineage(synthetic.store, { from: "summaries" }));
});

afterAll(async () => {
  await athena?.close();
  client?.destroy();
  await standIn?.close();
  await duck?.close();
  await synthetic?.remove();
});

/** The answer, or the name of the error it threw: so that refusals compare too. */
async function outcome<T>(answer: () => T | Promise<T>): Promise<T | { error: string }> {
  try {
    return await answer();
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/** The id of the execution a StartQueryExecution call started. */
const idOf = (call: AthenaCall) => String(call.response.QueryExecutionId);

describe("the lineage index answered by Athena", () => {
  it("answers trace and impact through Athena as DuckDB and the records do", async () => {
    const [first, middle, last] = [jobs[0], jobs[12], jobs[23]] as [SyntheticJob, SyntheticJob, SyntheticJob];
    const names = [
      first.artifacts.replyAudio.key,
      middle.artifacts.report.key,
      last.source.key,
      // The other names an auditor may use: a uri, a sha256 in upper case, an s3:// uri of the key.
      middle.artifacts.transcript.uri,
      first.artifacts.record.sha256.toUpperCase(),
      `s3://some-bucket/${last.artifacts.replyText.key}`,
      quoted.source.key,
      quoted.artifacts.replyAudio.key,
      "artifacts/vm-nobody/reply.wav",
    ];
    for (const name of names) {
      const traced = await outcome(() => traceFromIndex(athena, name));
      expect(traced, name).toEqual(await outcome(() => traceFromIndex(duck, name)));
      expect(traced, name).toEqual(await outcome(() => trace(records, name)));
      const impacted = await outcome(() => impactFromIndex(athena, name));
      expect(impacted, name).toEqual(await outcome(() => impactFromIndex(duck, name)));
      expect(impacted, name).toEqual(await outcome(() => impact(records, name)));
    }
    // The quoted name was found, not refused: its answer is a tree.
    expect(await traceFromIndex(athena, quoted.artifacts.replyAudio.key)).toHaveProperty("producedBy");
  });

  it("voxtrail lineage --engine athena prints what --engine duckdb prints, its progress on stderr", async () => {
    const env = {
      AWS_ENDPOINT_URL_ATHENA: standIn.url,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "athena-stand-in",
      AWS_SECRET_ACCESS_KEY: "athena-stand-in",
    };
    const athenaFlags = ["--engine", "athena", "--bucket", synthetic.store.bucket];
    const flags = [...athenaFlags, "--database", DATABASE, "--workgroup", WORKGROUP];
    for (const question of [
      ["trace", quoted.artifacts.replyAudio.key],
      ["impact", quoted.source.key],
      ["boundaries"],
    ]) {
      const asked = await runCli(["lineage", ...question, ...flags, "--json"], env);
      const local = await runCli([
        "lineage",
        ...question,
        "--store",
        synthetic.root,
        "--engine",
        "duckdb",
        "--json",
      ]);
      expect(asked.code, question.join(" ")).toBe(0);
      expect(asked.stdout, question.join(" ")).toBe(local.stdout);
      expect(asked.stderr).toMatch(/^athena: \w[\w-]* query succeeded after \d+ ms$/m);
    }
    const missing = await runCli(["lineage", "boundaries", ...athenaFlags], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /--engine athena needs --stage NAME, or --bucket NAME, --database NAME and --workgroup NAME/,
    );
  });

  it("voxtrail lineage --stage NAME --engine athena reads the bucket, database and workgroup from the stage's SSM parameter", async () => {
    const stage = `athena-${randomUUID().slice(0, 8)}`;
    const resources: StageResources = {
      stage,
      region: "us-east-1",
      bucket: synthetic.store.bucket,
      voicemailStateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${stage}-voicemail`,
      lineageIndexDatabase: DATABASE,
      lineageIndexWorkgroup: WORKGROUP,
    };
    const ssm = new SSMClient(motoClientConfig());
    await ssm.send(
      new PutParameterCommand({
        Name: stageParameterName(stage),
        Type: "String",
        Value: JSON.stringify(resources),
      }),
    );
    ssm.destroy();
    const env = {
      ...motoCliEnvironment(),
      AWS_ENDPOINT_URL_ATHENA: standIn.url,
    };
    const question = ["impact", quoted.source.key, "--json"];
    const before = standIn.calls("StartQueryExecution").length;
    const asked = await runCli(["lineage", ...question, "--stage", stage, "--engine", "athena"], env);
    const local = await runCli(["lineage", ...question, "--store", synthetic.root, "--engine", "duckdb"]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toBe(local.stdout);
    const started = standIn.calls("StartQueryExecution").slice(before);
    expect(started.length).toBeGreaterThan(0);
    for (const call of started) {
      expect(call.body).toMatchObject({
        WorkGroup: WORKGROUP,
        QueryExecutionContext: { Database: DATABASE },
      });
    }
    const undeployed = await runCli(
      ["lineage", "boundaries", "--stage", `${stage}-gone`, "--engine", "athena"],
      env,
    );
    expect(undeployed.code).toBe(1);
    expect(undeployed.stderr).toMatch(/stage athena-\w+-gone is not deployed in us-east-1: no SSM parameter/);
  });

  it("answers boundaries, all and since a time, as DuckDB and the records do", async () => {
    for (const options of [{}, { since: "2026-01-02T00:00:00Z" }, { since: "2030-01-01T00:00:00Z" }]) {
      const counted = await boundariesFromIndex(athena, options);
      expect(counted).toEqual(await boundariesFromIndex(duck, options));
      expect(counted).toEqual(boundaries(records, options));
    }
  });

  it("reads the whole graph page by page, following Athena's NextToken", async () => {
    const before = standIn.calls("StartQueryExecution").length;
    const graph = await graphFromIndex(athena);
    expect(graph.activities).toEqual((await graphFromIndex(duck)).activities);
    expect(graph.activities).toHaveLength(jobs.length * 5);

    const [start] = standIn.calls("StartQueryExecution").slice(before);
    expect(start?.body.QueryString).toBe(ALL_RECORDS_SQL);
    const pages = standIn
      .calls("GetQueryResults")
      .filter((call) => call.body.QueryExecutionId === idOf(start as AthenaCall));
    // A header row, then one row per record, PAGE_SIZE rows a page.
    expect(pages).toHaveLength(Math.ceil((jobs.length * 5 + 1) / PAGE_SIZE));
    expect(pages.map((page) => page.body.MaxResults)).toEqual(pages.map(() => PAGE_SIZE));
    expect(pages[0]?.body.NextToken).toBeUndefined();
    pages.slice(1).forEach((page, index) => {
      expect(page.body.NextToken).toBe(pages[index]?.response.NextToken);
    });
    expect(pages.at(-1)?.response.NextToken).toBeUndefined();
  });

  it("sends the shared SQL text with the Glue database and workgroup, every parameter a quoted literal", async () => {
    await traceFromIndex(athena, quoted.source.key);
    const starts = standIn.calls("StartQueryExecution");
    expect(starts.length).toBeGreaterThan(0);
    for (const { body, status } of starts.filter((call) => call.status === 200)) {
      expect(status).toBe(200);
      expect(SHARED_SQL).toContain(body.QueryString);
      expect(body.QueryExecutionContext).toEqual({ Database: DATABASE });
      expect(body.WorkGroup).toBe(WORKGROUP);
      expect(typeof body.ClientRequestToken).toBe("string");
      const placeholders = String(body.QueryString).match(/\?/g)?.length ?? 0;
      if (placeholders === 0) {
        // Athena refuses an empty list: none is sent.
        expect(body).not.toHaveProperty("ExecutionParameters");
      } else {
        const parameters = body.ExecutionParameters as string[];
        expect(parameters).toHaveLength(placeholders);
        for (const parameter of parameters) expect(parameter).toMatch(QUOTED_LITERAL);
      }
    }
    const escaped = `'${quoted.source.key.replaceAll("'", "''")}'`;
    expect(starts.at(-1)?.body.ExecutionParameters).toEqual([
      escaped,
      escaped,
      escaped.toLowerCase(),
      escaped,
    ]);
  });

  it("polls with a growing interval, telling onProgress of each state", async () => {
    const progress: AthenaQueryProgress[] = [];
    const patient = openAthenaIndex({
      client,
      database: DATABASE,
      workgroup: WORKGROUP,
      pollMs: 40,
      maxPollMs: 100,
      onProgress: (event) => progress.push(event),
    });
    await boundariesFromIndex(patient);
    const states = progress.map((event) => event.state);
    // Queued for one poll, running for two at least (longer if DuckDB is still at it), then done:
    // the last poll, then the one page of results.
    expect(states.join(" ")).toMatch(/^QUEUED RUNNING RUNNING( RUNNING)* SUCCEEDED SUCCEEDED$/);
    expect(new Set(progress.map((event) => event.purpose))).toEqual(new Set(["boundaries"]));
    const executionId = progress[0]?.executionId;
    const polls = standIn
      .calls("GetQueryExecution")
      .filter((call) => call.body.QueryExecutionId === executionId)
      .map((call) => call.at);
    expect(polls).toHaveLength(states.length - 1);
    const waits = polls.slice(1).map((at, index) => at - (polls[index] as number));
    // 40, 80, then the 100 ms ceiling (a timer may fire a millisecond or two early).
    waits.forEach((wait, index) => {
      expect(wait).toBeGreaterThanOrEqual(Math.min(40 * 2 ** index, 100) - 3);
    });
    expect(Math.max(...waits)).toBeLessThan(250);
  });

  it("a FAILED query is AthenaQueryFailed with Athena's reason, its parameters masked", async () => {
    const name = quoted.artifacts.transcript.key;
    standIn.failNext(`COLUMN_NOT_FOUND: line 4:3: nothing named '${name.replaceAll("'", "''")}' or ${name}`);
    const error = await traceFromIndex(athena, name).then(
      () => undefined,
      (thrown: unknown) => thrown as Error & { retryable: boolean },
    );
    const [start] = standIn.calls("StartQueryExecution").slice(-1);
    expect(error?.name).toBe("AthenaQueryFailed");
    expect(error?.retryable).toBe(false);
    expect(error?.message).toContain("COLUMN_NOT_FOUND: line 4:3: nothing named <parameter 1>");
    expect(error?.message).toContain(
      `the trace query (Athena execution ${idOf(start as AthenaCall)}) failed`,
    );
    expect(error?.message).not.toContain("brien");
    expect(
      standIn
        .calls("GetQueryResults")
        .some((call) => call.body.QueryExecutionId === idOf(start as AthenaCall)),
    ).toBe(false);
  });

  it("the stand-in fails an unquoted string parameter, as Athena does", async () => {
    const key = jobs[0]?.artifacts.replyAudio.key as string;
    const { QueryExecutionId } = await client.send(
      new StartQueryExecutionCommand({
        QueryString: TRACE_RECORDS_SQL,
        QueryExecutionContext: { Database: DATABASE },
        WorkGroup: WORKGROUP,
        ExecutionParameters: [key, key, key, key],
      }),
    );
    let state: QueryExecutionState | undefined;
    let reason: string | undefined;
    for (let poll = 0; poll < 100 && state !== "FAILED" && state !== "SUCCEEDED"; poll++) {
      if (poll > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const { QueryExecution } = await client.send(new GetQueryExecutionCommand({ QueryExecutionId }));
      state = QueryExecution?.Status?.State;
      reason = QueryExecution?.Status?.StateChangeReason;
    }
    expect(state).toBe("FAILED");
    expect(reason).toMatch(/parameter 1 is not a SQL literal/);
  });

  it("a query still running at the timeout is stopped and is AthenaQueryTimedOut", async () => {
    standIn.hangNext();
    const hasty = openAthenaIndex({
      client,
      database: DATABASE,
      workgroup: WORKGROUP,
      pollMs: 10,
      timeoutMs: 250,
    });
    const started = Date.now();
    await expect(boundariesFromIndex(hasty)).rejects.toMatchObject({ name: "AthenaQueryTimedOut" });
    expect(Date.now() - started).toBeLessThan(2000);
    const [start] = standIn.calls("StartQueryExecution").slice(-1);
    const executionId = idOf(start as AthenaCall);
    expect(standIn.calls("StopQueryExecution").map((call) => call.body)).toContainEqual({
      QueryExecutionId: executionId,
    });
    expect(standIn.state(executionId)).toBe("CANCELLED");
  });

  it("aborting stops the query and is AthenaQueryCancelled", async () => {
    standIn.hangNext();
    const controller = new AbortController();
    const abortable = openAthenaIndex({
      client,
      database: DATABASE,
      workgroup: WORKGROUP,
      pollMs: 10,
      signal: controller.signal,
      onProgress: ({ state }) => {
        if (state === "RUNNING") controller.abort();
      },
    });
    await expect(traceFromIndex(abortable, quoted.source.key)).rejects.toMatchObject({
      name: "AthenaQueryCancelled",
    });
    const [start] = standIn.calls("StartQueryExecution").slice(-1);
    expect(standIn.state(idOf(start as AthenaCall))).toBe("CANCELLED");
    // Aborted already: nothing more is started.
    const starts = standIn.calls("StartQueryExecution").length;
    await expect(boundariesFromIndex(abortable)).rejects.toMatchObject({ name: "AthenaQueryCancelled" });
    expect(standIn.calls("StartQueryExecution")).toHaveLength(starts);
  });

  it("a workgroup Athena refuses, or a database it does not have, is a named error", async () => {
    const elsewhere = openAthenaIndex({ client, database: DATABASE, workgroup: "primary", pollMs: 5 });
    const refused = await boundariesFromIndex(elsewhere).catch((error: Error) => error);
    expect(refused).toMatchObject({ name: "AthenaRequestFailed", retryable: false });
    expect((refused as Error).message).toBe(
      "Athena StartQueryExecution for the boundaries query failed (InvalidRequestException)",
    );
    const nowhere = openAthenaIndex({ client, database: "no_such_db", workgroup: WORKGROUP, pollMs: 5 });
    await expect(boundariesFromIndex(nowhere)).rejects.toMatchObject({
      name: "AthenaQueryFailed",
      message: expect.stringContaining("SCHEMA_NOT_FOUND"),
    });
  });

  it("a name too long for an Athena parameter is refused before any call", async () => {
    const starts = standIn.calls("StartQueryExecution").length;
    const name = `artifacts/${"x".repeat(1100)}`;
    await expect(traceFromIndex(athena, name)).rejects.toMatchObject({ name: "InvalidInput" });
    await expect(traceFromIndex(athena, name)).rejects.not.toThrow(/xxxx/);
    expect(standIn.calls("StartQueryExecution")).toHaveLength(starts);
  });
});
