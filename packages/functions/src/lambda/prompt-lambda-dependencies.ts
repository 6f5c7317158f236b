import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { S3Client } from "@aws-sdk/client-s3";
import { InvalidInput } from "@voxtrail/core";
import { cloudProviders, PROVIDER_ENVIRONMENT, selectionFromEnvironment } from "@voxtrail/providers";
import { S3Store } from "@voxtrail/storage";
import type { PromptDependencies } from "../prompts/prompt-dependencies";
import { LAMBDA_ENVIRONMENT, policyFrom, required } from "./lambda-dependencies";
import { CARTESIA_SECRET, linkedSecret } from "./linked-secret";

/**
 * The dependencies of a prompts function in Lambda, from the same environment variables as the
 * stage functions (`LAMBDA_ENVIRONMENT`, the synthesizer's `PROVIDER_ENVIRONMENT`), but only what
 * prompts need: the bucket, a cloud synthesizer, the boundary policy. No transcriber, reasoner or
 * event bus has to be configured.
 *
 * @example
 * // VOXTRAIL_STAGE=dev VOXTRAIL_BUCKET=... VOXTRAIL_BOUNDARY_POLICY='{...}' VOXTRAIL_SYNTHESIZER=sonic-sagemaker ...
 * const deps = await promptLambdaDependencies(process.env);
 */
export async function promptLambdaDependencies(
  env: NodeJS.ProcessEnv = process.env,
): Promise<PromptDependencies> {
  const stage = required(env, LAMBDA_ENVIRONMENT.stage);
  const selection = selectionFromEnvironment(env);
  selection.cartesiaApiKey ??= linkedSecret(CARTESIA_SECRET);
  // Only the synthesizer is built: the stages' other providers stay embedded (and unused) here.
  const { synthesizer } = await cloudProviders({
    ...selection,
    transcriber: "local",
    reasoner: "local",
    records: "local",
  });
  if (!synthesizer) {
    throw new InvalidInput(
      `the local synthesizer cannot run in Lambda: set ${PROVIDER_ENVIRONMENT.synthesizer} to sonic-sagemaker or cartesia-api`,
    );
  }
  return {
    store: new S3Store({ client: new S3Client({}), bucket: required(env, LAMBDA_ENVIRONMENT.bucket) }),
    synthesizer,
    logger: new Logger({ serviceName: "voxtrail" }),
    metrics: new Metrics({
      namespace: "voxtrail",
      serviceName: "voxtrail",
      defaultDimensions: { environment: stage },
    }),
    compute: { kind: "aws-account", service: "lambda", region: required(env, "AWS_REGION") },
    boundaryPolicy: policyFrom(required(env, LAMBDA_ENVIRONMENT.boundaryPolicy)),
    language: env[LAMBDA_ENVIRONMENT.language] || "en",
  };
}
