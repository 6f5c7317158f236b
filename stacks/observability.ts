import {
  ATTEMPT_METRICS,
  PIPELINE_METRICS,
  STAGE_DURATION_METRICS,
  STAGE_FUNCTIONS,
  type StageFunction,
} from "@voxtrail/workflow";
import type { DeployedSonicEndpoint } from "./sonic-endpoint";
import type { StageConfig } from "./stage-config";

/**
 * The EMF namespace and dimension names the stage functions' metrics carry: Powertools Metrics
 * built in packages/functions/src/lambda/lambda-dependencies.ts (namespace, `service`, and the
 * stage as `environment`) plus what packages/functions/src/metrics/activity-metrics.ts adds per
 * attempt (`stage`, `provider`). CloudWatch names a metric by all of its dimensions.
 */
/** The activity record's stage name of a synthesis (the `stage` dimension). */
const SYNTHESIZE_STAGE = "Synthesize";

/**
 * The metric counting throttled synthesis attempts, from the Synthesize function's log: its
 * middleware logs every failure as `{"message":"stage failed","errorName":...,"function_name":...}`
 * (packages/functions/src/middleware/middy.ts), and a metric filter counts `SynthesisThrottled`.
 */
const SYNTHESIS_THROTTLED = {
  metricName: "SynthesisThrottled",
  filterPattern: '{ $.errorName = "SynthesisThrottled" }',
  dimension: { FunctionName: "$.function_name" },
} as const;

/** The batch workflows, each with its own state machine: logical-name prefix and dashboard title. */
const BATCH_WORKFLOWS = {
  batch: {
    alarm: "BatchFailedExecutionsAlarm",
    title: "Voicemail batch executions",
    what: "voicemail batch",
  },
  prompts: { alarm: "PromptsFailedExecutionsAlarm", title: "IVR prompts executions", what: "IVR prompts" },
} as const;
type BatchWorkflow = keyof typeof BATCH_WORKFLOWS;

/** The executions each state machine's graph shows (AWS/States, per StateMachineArn). */
const EXECUTION_METRICS = [
  "ExecutionsStarted",
  "ExecutionsSucceeded",
  "ExecutionsFailed",
  "ExecutionsTimedOut",
];

/** A SEARCH expression over the pipeline's metrics named `metric`, in this stage, one series per provider and stage. */
function pipelineSearch(metric: string, statistic: string, period: number): string {
  const schema = [PIPELINE_METRICS.namespace, ...PIPELINE_METRICS.dimensions].join(",");
  return `SEARCH('{${schema}} MetricName="${metric}" environment="${$app.stage}"', '${statistic}', ${period})`;
}

/**
 * The stage's dashboard and alarms.
 *
 * Dashboard (`<app>-<stage>`): executions started/succeeded/failed/timed out (AWS/States, on the
 * voicemail state machine), stage durations p50/p95 and `synthesize.ttfb` p50/p95 from the EMF
 * metrics the functions emit (SEARCH over the stage's `environment`, one line per provider),
 * failed attempts per stage (`stage.failed`), throttles (Lambda `Throttles` of every stage
 * function, and {@link SYNTHESIS_THROTTLED}), the Sonic endpoint's concurrency and errors when
 * the stage synthesizes on SageMaker, and the alarms' states.
 *
 * The batch workflows (voicemail batch, IVR prompts) get their executions graphed too.
 *
 * Alarms, each notifying the stage's SNS topic (and an email address, when configured) when it
 * goes into and out of alarm; missing data is not breaching:
 * - failed executions: `ExecutionsFailed` of the voicemail state machine, and of each batch
 *   workflow's, Sum per period >= threshold;
 * - ttfb p95: `synthesize.ttfb` of the configured synthesizer, p95 per period > threshold (ms);
 * - throttles: Lambda throttles of all stage functions plus throttled syntheses, Sum >= threshold.
 *
 * @example
 * observability({ config, stateMachine, workflows: { batch, prompts }, functions, sonic });
 */
export function observability({
  config,
  stateMachine,
  workflows,
  functions,
  sonic,
}: {
  config: StageConfig;
  stateMachine: aws.sfn.StateMachine;
  workflows: Record<BatchWorkflow, aws.sfn.StateMachine>;
  functions: Record<StageFunction, sst.aws.Function>;
  sonic: DeployedSonicEndpoint | undefined;
}) {
  const settings = config.observability;
  const period = settings.periodSeconds;
  const region = aws.getRegionOutput().region;
  const topic = new aws.sns.Topic("Alarms", { name: `${$app.name}-${$app.stage}-alarms` });
  if (settings.alarmEmail) {
    new aws.sns.TopicSubscription("AlarmsEmail", {
      topic: topic.arn,
      protocol: "email",
      endpoint: settings.alarmEmail,
    });
  }
  const notify = { alarmActions: [topic.arn], okActions: [topic.arn], treatMissingData: "notBreaching" };

  new aws.cloudwatch.LogMetricFilter("SynthesisThrottledFilter", {
    // The log group the Synthesize function writes to (sst creates it with the function).
    logGroupName: functions.synthesize.nodes.function.loggingConfig.logGroup,
    pattern: SYNTHESIS_THROTTLED.filterPattern,
    metricTransformation: {
      namespace: PIPELINE_METRICS.namespace,
      name: SYNTHESIS_THROTTLED.metricName,
      value: "1",
      unit: "Count",
      dimensions: SYNTHESIS_THROTTLED.dimension,
    },
  });

  const failedExecutionsAlarm = (id: string, what: string, machine: aws.sfn.StateMachine) =>
    new aws.cloudwatch.MetricAlarm(id, {
      alarmDescription: `${what} executions failed in ${$app.stage}`,
      namespace: "AWS/States",
      metricName: "ExecutionsFailed",
      dimensions: { StateMachineArn: machine.arn },
      statistic: "Sum",
      period,
      evaluationPeriods: settings.failedExecutions.evaluationPeriods,
      threshold: settings.failedExecutions.threshold,
      comparisonOperator: "GreaterThanOrEqualToThreshold",
      ...notify,
    });
  const failedExecutions = failedExecutionsAlarm("FailedExecutionsAlarm", "voicemail", stateMachine);
  const workflowNames = Object.keys(BATCH_WORKFLOWS) as BatchWorkflow[];
  const workflowFailures = workflowNames.map((workflow) =>
    failedExecutionsAlarm(
      BATCH_WORKFLOWS[workflow].alarm,
      BATCH_WORKFLOWS[workflow].what,
      workflows[workflow],
    ),
  );
  const ttfb = new aws.cloudwatch.MetricAlarm("SynthesisTtfbAlarm", {
    alarmDescription: `synthesize.ttfb p95 above ${settings.ttfbP95Ms.threshold} ms in ${$app.stage}`,
    namespace: PIPELINE_METRICS.namespace,
    metricName: ATTEMPT_METRICS.ttfb,
    dimensions: {
      service: PIPELINE_METRICS.service,
      environment: $app.stage,
      stage: SYNTHESIZE_STAGE,
      provider: config.providers.synthesizer,
    },
    extendedStatistic: "p95",
    period,
    evaluationPeriods: settings.ttfbP95Ms.evaluationPeriods,
    threshold: settings.ttfbP95Ms.threshold,
    comparisonOperator: "GreaterThanThreshold",
    ...notify,
  });
  const lambdaThrottles = STAGE_FUNCTIONS.map((fn, index) => ({
    id: `lambda${index}`,
    metric: {
      namespace: "AWS/Lambda",
      metricName: "Throttles",
      dimensions: { FunctionName: functions[fn].name },
      period,
      stat: "Sum",
    },
  }));
  const synthesisThrottled = {
    id: "synthesis",
    metric: {
      namespace: PIPELINE_METRICS.namespace,
      metricName: SYNTHESIS_THROTTLED.metricName,
      dimensions: { FunctionName: functions.synthesize.name },
      period,
      stat: "Sum",
    },
  };
  const throttles = new aws.cloudwatch.MetricAlarm("ThrottlesAlarm", {
    alarmDescription: `stage functions or syntheses throttled in ${$app.stage}`,
    metricQueries: [
      {
        id: "throttles",
        expression: `SUM([${[...lambdaThrottles, synthesisThrottled].map((q) => q.id).join(",")}])`,
        label: "throttles",
        returnData: true,
      },
      ...lambdaThrottles,
      synthesisThrottled,
    ],
    evaluationPeriods: settings.throttles.evaluationPeriods,
    threshold: settings.throttles.threshold,
    comparisonOperator: "GreaterThanOrEqualToThreshold",
    ...notify,
  });

  const functionNames = $util.all(STAGE_FUNCTIONS.map((fn) => functions[fn].name));
  const dashboard = new aws.cloudwatch.Dashboard("Dashboard", {
    dashboardName: `${$app.name}-${$app.stage}`,
    dashboardBody: $util
      .all([
        region,
        stateMachine.arn,
        $util.all(workflowNames.map((workflow) => workflows[workflow].arn)),
        functionNames,
        functions.synthesize.name,
        sonic?.name,
        $util.all([failedExecutions.arn, ttfb.arn, throttles.arn, ...workflowFailures.map((a) => a.arn)]),
      ])
      .apply(([region, stateMachineArn, workflowArns, functionNames, synthesizeName, sonicName, alarms]) => {
        const graph = (title: string, metrics: unknown[], extra: Record<string, unknown> = {}) => ({
          type: "metric",
          width: 12,
          height: 6,
          properties: { title, region, period, view: "timeSeries", metrics, ...extra },
        });
        const search = (metric: string, statistic: string, id: string) => [
          { expression: pipelineSearch(metric, statistic, period), id, label: `${metric} ${statistic}` },
        ];
        const executions = (title: string, arn: string) =>
          graph(
            title,
            EXECUTION_METRICS.map((name) => ["AWS/States", name, "StateMachineArn", arn, { stat: "Sum" }]),
          );
        const widgets = [
          executions("Voicemail executions", stateMachineArn),
          ...workflowNames.map((workflow, index) =>
            executions(BATCH_WORKFLOWS[workflow].title, workflowArns[index] as string),
          ),
          graph("Time to first audio (ms)", [
            ...search(ATTEMPT_METRICS.ttfb, "p50", "ttfb50"),
            ...search(ATTEMPT_METRICS.ttfb, "p95", "ttfb95"),
          ]),
          ...(["p50", "p95"] as const).map((statistic) =>
            graph(
              `Stage durations ${statistic} (ms)`,
              Object.values(STAGE_DURATION_METRICS).flatMap((metric, index) =>
                search(metric, statistic, `d${statistic}${index}`),
              ),
            ),
          ),
          graph("Failed stage attempts", search(ATTEMPT_METRICS.failed, "Sum", "failed")),
          graph("Throttles", [
            ...functionNames.map((name) => [
              "AWS/Lambda",
              "Throttles",
              "FunctionName",
              name,
              { stat: "Sum" },
            ]),
            [
              PIPELINE_METRICS.namespace,
              SYNTHESIS_THROTTLED.metricName,
              "FunctionName",
              synthesizeName,
              { stat: "Sum" },
            ],
          ]),
          ...(sonicName === undefined || sonic === undefined
            ? []
            : [
                graph(`Sonic endpoint ${sonicName}`, [
                  ...["ConcurrentRequestsPerModel", "Invocation4XXErrors", "Invocation5XXErrors"].map(
                    (name) => [
                      "AWS/SageMaker",
                      name,
                      "EndpointName",
                      sonicName,
                      "VariantName",
                      sonic.variant,
                      { stat: name === "ConcurrentRequestsPerModel" ? "Maximum" : "Sum" },
                    ],
                  ),
                ]),
              ]),
          { type: "alarm", width: 24, height: 3, properties: { title: "Alarms", alarms } },
        ];
        return JSON.stringify({ widgets });
      }),
  });
  return { topic, dashboard, alarms: { failedExecutions, ttfb, throttles, workflowFailures } };
}
