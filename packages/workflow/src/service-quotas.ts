/**
 * One AWS default quota that bounds a burst of voicemails: its value as AWS documents it for a
 * new account (before any increase), the unit, whether Service Quotas can raise it, and the page
 * it was read from. docs/volume.md lays the same figures out with the reasoning behind each.
 */
export interface ServiceQuota {
  /** The quota's name as AWS's page (or the Service Quotas console) gives it. */
  name: string;
  /**
   * The default, for {@link SERVICE_QUOTAS_REGION} where AWS's page differs by Region;
   * `undefined` where AWS sets it per model or per account and publishes no single default.
   */
  value: number | undefined;
  unit: string;
  /** Whether an increase can be requested (Service Quotas or AWS Support). */
  adjustable: boolean;
  /** The documentation page the figure was read from. */
  source: string;
  /** Where the figure differs by Region, older pages disagree, or what exceeding it returns. */
  note?: string;
}

/** The Region whose defaults {@link SERVICE_QUOTAS} holds where AWS's pages differ by Region. */
export const SERVICE_QUOTAS_REGION = "us-east-1";

/** The pages the figures are read from. */
const SOURCES = {
  transcribeGuide: "https://docs.aws.amazon.com/transcribe/latest/dg/limits-guidelines.html",
  transcribeQueueing: "https://docs.aws.amazon.com/transcribe/latest/dg/job-queueing.html",
  stepFunctions: "https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html",
  lambda: "https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html",
  lambdaReserved: "https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html",
  lambdaScaling: "https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html",
  bedrockRuntime: "https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html",
  sageMaker: "https://docs.aws.amazon.com/general/latest/gr/sagemaker.html",
} as const;

/** The large Regions' Step Functions figures apply to us-east-1, us-west-2 and eu-west-1 only. */
const SFN_OTHER_REGIONS = "In Regions other than us-east-1, us-west-2 and eu-west-1:";

/**
 * AWS's default quotas on the path of one voicemail (Transcribe batch job, Standard workflow,
 * Lambda stages, Bedrock reasoning, Sonic on a SageMaker endpoint), as read on 2026-12-06.
 * The values an account actually has are in its Service Quotas console; these are what a new
 * account starts from, and what a load rehearsal or a stage's gate compares against.
 *
 * @example
 * SERVICE_QUOTAS.transcribe.concurrentBatchJobs.value; // 250
 * SERVICE_QUOTAS.stepFunctions.startExecutionRefill.value; // 300 (per second, us-east-1)
 */
export const SERVICE_QUOTAS = {
  transcribe: {
    concurrentBatchJobs: {
      name: "Number of concurrent batch transcription jobs",
      value: 250,
      unit: "jobs",
      adjustable: true,
      source: SOURCES.transcribeGuide,
      note:
        "Earlier revisions of the same page said 100. A start beyond it without job queueing " +
        "(JobExecutionSettings.AllowDeferredExecution) fails with LimitExceededException. The " +
        "General Reference page (https://docs.aws.amazon.com/general/latest/gr/transcribe.html) " +
        "holds the authoritative table.",
    },
    startTranscriptionJobRate: {
      name: "Transactions per second, StartTranscriptionJob",
      value: 25,
      unit: "requests/second",
      adjustable: true,
      source: SOURCES.transcribeGuide,
      note: "Earlier revisions of the same page said 10.",
    },
    getTranscriptionJobRate: {
      name: "Transactions per second, GetTranscriptionJob",
      value: 30,
      unit: "requests/second",
      adjustable: true,
      source: SOURCES.transcribeGuide,
      note: "Earlier revisions of the same page said 20. Every poll of a job's state is one call.",
    },
    jobQueueSize: {
      name: "Jobs in the job queue (AllowDeferredExecution)",
      value: 10_000,
      unit: "jobs",
      adjustable: true,
      source: SOURCES.transcribeQueueing,
      note: "A start beyond it fails with LimitExceededConcurrentJobException.",
    },
    jobQueueBandwidthRatio: {
      name: "Job queue bandwidth ratio",
      value: 0.9,
      unit: "share of concurrent batch transcription jobs",
      adjustable: true,
      source: SOURCES.transcribeQueueing,
      note: "Queued jobs run on at most 90% of the concurrency quota; the rest is kept for new starts.",
    },
  },
  stepFunctions: {
    startExecutionBucket: {
      name: "StartExecution bucket size (Standard)",
      value: 1_300,
      unit: "requests",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: `${SFN_OTHER_REGIONS} 800. Beyond the bucket, starts are throttled.`,
    },
    startExecutionRefill: {
      name: "StartExecution refill rate (Standard)",
      value: 300,
      unit: "requests/second",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: `${SFN_OTHER_REGIONS} 150.`,
    },
    stateTransitionBucket: {
      name: "StateTransition bucket size (Standard)",
      value: 5_000,
      unit: "transitions",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: `${SFN_OTHER_REGIONS} 800. New accounts start lower; AWS raises it with usage. Reported as ExecutionThrottled.`,
    },
    stateTransitionRefill: {
      name: "StateTransition refill rate (Standard)",
      value: 5_000,
      unit: "transitions/second",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: `${SFN_OTHER_REGIONS} 800. New accounts start lower; AWS raises it with usage.`,
    },
    sendTaskBucket: {
      name: "SendTaskSuccess / SendTaskFailure / SendTaskHeartbeat bucket size (each)",
      value: 3_000,
      unit: "requests",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: `${SFN_OTHER_REGIONS} 1,500.`,
    },
    sendTaskRefill: {
      name: "SendTaskSuccess / SendTaskFailure / SendTaskHeartbeat refill rate (each)",
      value: 500,
      unit: "requests/second",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: `${SFN_OTHER_REGIONS} 300.`,
    },
    openExecutions: {
      name: "Maximum open executions per account (Standard)",
      value: 1_000_000,
      unit: "executions",
      adjustable: true,
      source: SOURCES.stepFunctions,
      note: "A start beyond it fails with ExecutionLimitExceeded.",
    },
  },
  lambda: {
    concurrentExecutions: {
      name: "Concurrent executions",
      value: 1_000,
      unit: "concurrent executions per Region",
      adjustable: true,
      source: SOURCES.lambda,
      note:
        "New accounts start lower; AWS raises it with usage. Shared by every function in the " +
        "account and Region; reserved concurrency is carved out of it.",
    },
    unreservedConcurrencyMinimum: {
      name: "Concurrency left unreserved",
      value: 100,
      unit: "concurrent executions",
      adjustable: false,
      source: SOURCES.lambdaReserved,
      note: "Reserved concurrency can take at most the account's concurrency minus 100.",
    },
    scalingRate: {
      name: "Concurrency scaling rate, per function",
      value: 1_000,
      unit: "execution environments per 10 seconds",
      adjustable: false,
      source: SOURCES.lambdaScaling,
      note:
        "Replaced the account-wide burst of 500-3,000 then 500 a minute that older pages " +
        "describe. Requests beyond it are throttled (429).",
    },
  },
  bedrock: {
    onDemandRequestsPerMinute: {
      name: "On-demand InvokeModel requests per minute for <model>",
      value: undefined,
      unit: "requests/minute",
      adjustable: true,
      source: SOURCES.bedrockRuntime,
      note: "One quota per model and Region: read it for the stage's bedrockModelId.",
    },
    onDemandTokensPerMinute: {
      name: "On-demand InvokeModel tokens per minute for <model>",
      value: undefined,
      unit: "tokens/minute (input + output)",
      adjustable: true,
      source: SOURCES.bedrockRuntime,
      note: "One quota per model and Region: read it for the stage's bedrockModelId.",
    },
  },
  sageMaker: {
    g6eXlargeEndpointInstances: {
      name: "ml.g6e.xlarge for endpoint usage",
      value: 0,
      unit: "instances",
      adjustable: true,
      source: SOURCES.sageMaker,
      note:
        "Shared by every endpoint on the type in the account and Region. New accounts see 0 " +
        "until raised; CreateEndpoint beyond it fails with ResourceLimitExceeded.",
    },
  },
} as const satisfies Record<string, Record<string, ServiceQuota>>;
