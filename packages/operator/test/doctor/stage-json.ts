/** The Sonic model package the stand-in account is subscribed to (us-east-1). */
export const MODEL_PACKAGE_ARN = "arn:aws:sagemaker:us-east-1:865070037744:model-package/sonic-3-6-a1b2c3d4";

/** An inference profile id and the foundation model it routes to. */
export const PROFILE_ID = "us.anthropic.claude-3-5-haiku-20241022-v1:0";
export const MODEL_ID = "anthropic.claude-3-5-haiku-20241022-v1:0";

/**
 * A stage file's JSON: production-like (creates its endpoint from `sonic`, reasons on Bedrock with
 * `bedrockModelId`) unless `sonic` / `providers` say otherwise.
 */
export function stageJson(
  overrides: { sonic?: unknown; providers?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    description: "doctor test stage",
    boundaryPolicy: "production",
    providers: {
      transcriber: "cartesia-ink",
      reasoner: "bedrock",
      bedrockModelId: PROFILE_ID,
      synthesizer: "sonic-sagemaker",
      voiceId: "bf0a246a-8642-498a-9950-80c35e9276b5",
      recordsKey: "records/records.jsonl",
      ...overrides.providers,
    },
    sonic: overrides.sonic ?? {
      modelPackageArn: MODEL_PACKAGE_ARN,
      instanceType: "ml.g6e.xlarge",
      minInstances: 2,
      maxInstances: 6,
      targetConcurrentRequestsPerInstance: 3,
    },
    storage: {
      incoming: { expireAfterDays: 30 },
      artifacts: { expireAfterDays: 30 },
      reports: { expireAfterDays: 400 },
      lineageSummaries: { expireAfterDays: 400 },
      noncurrentVersionsExpireAfterDays: 30,
      abortIncompleteUploadsAfterDays: 7,
      protectLineage: true,
    },
    workflows: { batchMaxConcurrency: 4, promptsMaxConcurrency: 4 },
    observability: {
      periodSeconds: 60,
      failedExecutions: { threshold: 1, evaluationPeriods: 1 },
      ttfbP95Ms: { threshold: 800, evaluationPeriods: 5 },
      throttles: { threshold: 1, evaluationPeriods: 1 },
    },
  };
}
