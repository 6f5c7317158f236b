import { readFileSync } from "node:fs";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import { createStageHandlers } from "@voxtrail/functions";
import { EMBEDDED_IN_LAMBDA, lambdaDependencies } from "@voxtrail/functions/lambda";
import { type SonicEndpoint, startSonicEndpoint } from "@voxtrail/local";
import { evaluateStacks } from "@voxtrail/operator/rehearsal";
import { CLOUD_BUILDERS } from "@voxtrail/providers";
import { STAGE_FUNCTIONS } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";
import { type Evaluation, mockArn } from "../../stacks/mocks/evaluation";
import { motoClientConfig } from "../setup/aws";
import { type Inputs, lambdaOf, ofType, resource, variablesOf } from "./resources";
import { CARTESIA_SECRET_ENV, repositoryConfig } from "./stage-configs";

/** One metric of one EMF line: namespace, name, and its dimensions with their values. */
interface EmittedMetric {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
}

/** The metrics of the EMF lines among `lines` (Lambda sends those to CloudWatch as metrics). */
function emittedMetrics(lines: Array<Record<string, unknown>>): EmittedMetric[] {
  return lines.flatMap((line) => {
    const aws = line._aws as
      | {
          CloudWatchMetrics: Array<{
            Namespace: string;
            Dimensions: string[][];
            Metrics: Array<{ Name: string }>;
          }>;
        }
      | undefined;
    return (aws?.CloudWatchMetrics ?? []).flatMap((directive) =>
      directive.Dimensions.flatMap((names) =>
        directive.Metrics.map((metric) => ({
          namespace: directive.Namespace,
          name: metric.Name,
          dimensions: Object.fromEntries(names.map((name) => [name, String(line[name])])),
        })),
      ),
    );
  });
}

/** A CloudWatch SEARCH expression, taken apart. */
function parseSearch(expression: string) {
  const match = /^SEARCH\('\{([^}]+)\} (.*)', '([^']+)', (\d+)\)$/.exec(expression);
  if (!match) throw new Error(`not a SEARCH expression: ${expression}`);
  const [namespace, ...dimensions] = (match[1] as string).split(",");
  const terms = Object.fromEntries(
    [...(match[2] as string).matchAll(/(\w+)="([^"]+)"/g)].map((term) => [term[1], term[2]]),
  );
  return { namespace, dimensions, terms, statistic: match[3], period: Number(match[4]) };
}

/** Whether a CloudWatch Logs JSON filter pattern of the form `{ $.field = "value" }` matches `line`. */
function filterMatches(pattern: string, line: Record<string, unknown>): boolean {
  const match = /^\{ \$\.(\w+) = "([^"]+)" \}$/.exec(pattern);
  if (!match) throw new Error(`unsupported filter pattern: ${pattern}`);
  return line[match[1] as string] === match[2];
}

const bucket = `voxtrail-observability-${Date.now()}`;

/** Each failed-executions alarm, and the state machine (as stage ci names it) it watches. */
const FAILED_EXECUTION_ALARMS = {
  FailedExecutionsAlarm: "voxtrail-ci-voicemail",
  BatchFailedExecutionsAlarm: "voxtrail-ci-voicemail-batch",
  PromptsFailedExecutionsAlarm: "voxtrail-ci-prompts",
};
const stateMachineArnOf = (name: string) => `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`;
const dev = repositoryConfig("dev");

describe("observability, against what the deployed functions emit (stage ci: dev.json)", () => {
  let evaluation: Evaluation;
  let sonic: SonicEndpoint;
  /** Every JSON line the handlers wrote (logs and EMF), as Lambda would ship them to the log group. */
  const lines: Array<Record<string, unknown>> = [];
  let emitted: EmittedMetric[];
  let dashboard: { widgets: Array<{ type: string; properties: Record<string, unknown> }> };

  beforeAll(async () => {
    evaluation = await evaluateStacks("ci", CARTESIA_SECRET_ENV);
    dashboard = JSON.parse(
      resource(evaluation, "aws:cloudwatch/dashboard:Dashboard", "Dashboard").dashboardBody as string,
    );

    // The first synthesis is refused for capacity (HTTP 424, OriginalStatusCode 429), the retry streams.
    sonic = await startSonicEndpoint({ faults: { modelError: { originalStatus: 429, requests: 1 } } });
    const s3 = new S3Client(motoClientConfig());
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const records = readFileSync(new URL("../../fixtures/records/records.jsonl", import.meta.url));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "records/records.jsonl", Body: records }));
    const { endpoint, credentials } = motoClientConfig();
    vi.stubEnv("AWS_ENDPOINT_URL", endpoint);
    vi.stubEnv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME", sonic.url);
    vi.stubEnv("AWS_ACCESS_KEY_ID", credentials.accessKeyId);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey);
    vi.stubEnv("AWS_REGION", "us-east-1");

    // The Synthesize function's environment as the stack sets it, over moto and the local endpoint.
    const real = await lambdaDependencies(
      {
        ...variablesOf(evaluation, "synthesize"),
        AWS_REGION: "us-east-1",
        CARTESIA_API_KEY: "sk_test_not_a_real_key",
        VOXTRAIL_BUCKET: bucket,
        VOXTRAIL_RECORDS_URI: `s3://${bucket}/records/records.jsonl`,
      },
      CLOUD_BUILDERS,
      EMBEDDED_IN_LAMBDA,
    );
    const { transcriber: ink, ...cloud } = real;
    // Cartesia Ink is the one provider not called: its processor is the real one, its answer fixed.
    const { deps } = await testDependencies({
      ...cloud,
      transcriber: {
        processor: ink.processor,
        transcribe: async () => ({
          text: "hi this is sam about order 4271 please call me back",
          words: [],
          language: "en",
          audioMs: 1000,
          processor: ink.processor,
        }),
      },
    });
    const handlers = createStageHandlers(deps);
    const samples = new Int16Array(8000).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
    );
    const tone = writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples));
    await deps.store.put("incoming/voicemail/a.wav", tone, { contentType: "audio/wav" });
    const execution = {
      id: "arn:aws:states:us-east-1:123456789012:execution:vm:1",
      startTime: "2026-01-01T00:00:01.500Z",
    };
    const event = {
      source: "aws.s3",
      "detail-type": "Object Created",
      time: "2026-01-01T00:00:01.000Z",
      detail: { bucket: { name: bucket }, object: { key: "incoming/voicemail/a.wav" } },
    };

    // Lambda sends both streams to the function's log group: EMF on stdout, errors on stderr.
    const writes = { out: process.stdout.write, err: process.stderr.write };
    const capture = ((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      return true;
    }) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    try {
      const state = (await handlers.ingest({ event, execution }, context)) as Record<string, unknown>;
      state.transcribe = await handlers.transcribe(state, context);
      state.reason = await handlers.reason(state, context);
      await expect(handlers.synthesize(state, context)).rejects.toMatchObject({ name: "SynthesisThrottled" });
      state.synthesize = await handlers.synthesize(state, context);
      await handlers.finalize(state, context);
    } finally {
      process.stdout.write = writes.out;
      process.stderr.write = writes.err;
    }
    emitted = emittedMetrics(lines);
  }, 180_000);

  afterAll(async () => {
    vi.unstubAllEnvs();
    await sonic?.close();
  });

  it("saw the functions emit time to first audio and every stage's duration", () => {
    const names = new Set(emitted.map((m) => m.name));
    for (const name of [
      "synthesize.ttfb",
      "ingest.duration",
      "transcribe.duration",
      "reason.duration",
      "synthesize.duration",
      "finalize.duration",
      "stage.failed",
    ]) {
      expect(names, name).toContain(name);
    }
  });

  it("graphs every pipeline metric by the namespace, dimensions and environment the functions emit it with", () => {
    const searches = dashboard.widgets
      .flatMap((w) => (w.properties.metrics as unknown[] | undefined) ?? [])
      .flatMap((m) => (Array.isArray(m) ? m : [m]))
      .filter(
        (m): m is { expression: string } => typeof (m as { expression?: unknown }).expression === "string",
      )
      .map((m) => parseSearch(m.expression));
    const searched = new Set(searches.map((s) => `${s.terms.MetricName} ${s.statistic}`));
    for (const statistic of ["p50", "p95"]) {
      expect(searched).toContain(`synthesize.ttfb ${statistic}`);
      for (const stage of ["ingest", "transcribe", "reason", "synthesize", "finalize"]) {
        expect(searched).toContain(`${stage}.duration ${statistic}`);
      }
    }
    for (const search of searches) {
      const same = emitted.filter((m) => m.name === search.terms.MetricName);
      expect(same.length, search.terms.MetricName).toBeGreaterThan(0);
      for (const metric of same) {
        expect(metric.namespace).toBe(search.namespace);
        expect(Object.keys(metric.dimensions).sort()).toEqual([...(search.dimensions as string[])].sort());
        expect(metric.dimensions.environment).toBe(search.terms.environment);
      }
      expect(search.terms.environment).toBe("ci");
      expect(search.period).toBe(dev.observability.periodSeconds);
    }
  });

  it("alarms on ttfb p95 of exactly the metric the Synthesize function emits, above the configured threshold", () => {
    const alarm = resource(evaluation, "aws:cloudwatch/metricAlarm:MetricAlarm", "SynthesisTtfbAlarm");
    const ttfb = emitted.filter((m) => m.name === "synthesize.ttfb");
    expect(ttfb).toContainEqual({
      namespace: alarm.namespace,
      name: alarm.metricName,
      dimensions: alarm.dimensions,
    });
    expect(alarm).toMatchObject({
      extendedStatistic: "p95",
      period: dev.observability.periodSeconds,
      threshold: dev.observability.ttfbP95Ms.threshold,
      evaluationPeriods: dev.observability.ttfbP95Ms.evaluationPeriods,
      comparisonOperator: "GreaterThanThreshold",
      treatMissingData: "notBreaching",
      alarmActions: [mockArn("aws:sns/topic:Topic", "voxtrail-ci-alarms")],
    });
  });

  it("counts throttled syntheses from the Synthesize function's own failure log line", () => {
    const [filter] = ofType(evaluation, "aws:cloudwatch/logMetricFilter:LogMetricFilter");
    const logGroup = resource(evaluation, "aws:cloudwatch/logGroup:LogGroup", "StageSynthesizeLogGroup");
    expect(filter?.logGroupName).toBe(logGroup.name);
    const matching = lines.filter((line) => filterMatches(filter?.pattern as string, line));
    expect(matching).toHaveLength(1);
    expect(matching[0]).toMatchObject({ message: "stage failed", errorName: "SynthesisThrottled" });
    const transformation = filter?.metricTransformation as {
      namespace: string;
      name: string;
      value: string;
      dimensions: Record<string, string>;
    };
    expect(transformation).toMatchObject({ namespace: "voxtrail", name: "SynthesisThrottled", value: "1" });
    for (const selector of Object.values(transformation.dimensions)) {
      expect(matching[0]?.[selector.replace(/^\$\./, "")]).toBeDefined();
    }
  });

  it("alarms on failed executions of each state machine and on throttles of every stage function", () => {
    for (const [alarm, machine] of Object.entries(FAILED_EXECUTION_ALARMS)) {
      expect(resource(evaluation, "aws:cloudwatch/metricAlarm:MetricAlarm", alarm), alarm).toMatchObject({
        namespace: "AWS/States",
        metricName: "ExecutionsFailed",
        dimensions: { StateMachineArn: stateMachineArnOf(machine) },
        statistic: "Sum",
        period: dev.observability.periodSeconds,
        threshold: dev.observability.failedExecutions.threshold,
        evaluationPeriods: dev.observability.failedExecutions.evaluationPeriods,
        comparisonOperator: "GreaterThanOrEqualToThreshold",
        alarmActions: [mockArn("aws:sns/topic:Topic", "voxtrail-ci-alarms")],
      });
    }
    const throttles = resource(evaluation, "aws:cloudwatch/metricAlarm:MetricAlarm", "ThrottlesAlarm");
    const queries = throttles.metricQueries as Array<{ id: string; expression?: string; metric?: Inputs }>;
    const metrics = queries.filter((q) => q.metric).map((q) => q.metric);
    const synthesizeName = lambdaOf(evaluation, "synthesize").name;
    expect(metrics).toEqual([
      ...STAGE_FUNCTIONS.map((fn) => ({
        namespace: "AWS/Lambda",
        metricName: "Throttles",
        dimensions: { FunctionName: lambdaOf(evaluation, fn).name },
        period: dev.observability.periodSeconds,
        stat: "Sum",
      })),
      {
        namespace: "voxtrail",
        metricName: "SynthesisThrottled",
        dimensions: { FunctionName: synthesizeName },
        period: dev.observability.periodSeconds,
        stat: "Sum",
      },
    ]);
    const sum = queries.find((q) => q.expression);
    expect(sum?.expression).toBe(
      `SUM([${queries
        .filter((q) => q.metric)
        .map((q) => q.id)
        .join(",")}])`,
    );
    expect(throttles.threshold).toBe(dev.observability.throttles.threshold);
  });

  it("graphs each state machine's executions, throttles, the Sonic endpoint and the alarms' states", () => {
    const metricRows = dashboard.widgets.flatMap(
      (w) => (w.properties.metrics as unknown[][] | undefined) ?? [],
    );
    for (const machine of Object.values(FAILED_EXECUTION_ALARMS)) {
      for (const name of [
        "ExecutionsStarted",
        "ExecutionsSucceeded",
        "ExecutionsFailed",
        "ExecutionsTimedOut",
      ]) {
        expect(metricRows).toContainEqual([
          "AWS/States",
          name,
          "StateMachineArn",
          stateMachineArnOf(machine),
          { stat: "Sum" },
        ]);
      }
    }
    for (const fn of STAGE_FUNCTIONS) {
      expect(metricRows).toContainEqual([
        "AWS/Lambda",
        "Throttles",
        "FunctionName",
        lambdaOf(evaluation, fn).name,
        { stat: "Sum" },
      ]);
    }
    expect(metricRows).toContainEqual([
      "AWS/SageMaker",
      "ConcurrentRequestsPerModel",
      "EndpointName",
      "voxtrail-dev-sonic",
      "VariantName",
      "AllTraffic",
      { stat: "Maximum" },
    ]);
    const alarms = dashboard.widgets.find((w) => w.type === "alarm");
    expect(alarms?.properties.alarms).toEqual(
      [
        "FailedExecutionsAlarm",
        "SynthesisTtfbAlarm",
        "ThrottlesAlarm",
        "BatchFailedExecutionsAlarm",
        "PromptsFailedExecutionsAlarm",
      ].map((name) => mockArn("aws:cloudwatch/metricAlarm:MetricAlarm", name)),
    );
    expect(ofType(evaluation, "aws:sns/topicSubscription:TopicSubscription")).toEqual([]);
  });
});
