import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { S3Client } from "@aws-sdk/client-s3";
import { InvalidInput } from "@voxtrail/core";
import { cloudProviders } from "@voxtrail/providers";
import { S3Store } from "@voxtrail/storage";
import {
  CARTESIA_SECRET,
  FUNCTION_ENVIRONMENT,
  PROVIDER_ENVIRONMENT,
  selectionFromEnvironment,
} from "@voxtrail/workflow";
import type { PromptDependencies } from "../prompts/prompt-dependencies";
import { policyFrom, required } from "./lambda-dependencies";
import { linkedSecret } from "./linked-secret";

/**
 * The dependencies of a prompts function in Lambda, from the same environment variables as the
 * stage functions (`FUNCTION_ENVIRONMENT`, the synthesizer's `PROVIDER_ENVIRONMENT`), but only what
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
  const stage = required(env, FUNCTION_ENVIRONMENT.stage);
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
    store: new S3Store({ client: new S3Client({}), bucket: required(env, FUNCTION_ENVIRONMENT.bucket) }),
    synthesizer,
    logger: new Logger({ serviceName: "voxtrail" }),
    metrics: new Metrics({
      namespace: "voxtrail",
      serviceName: "voxtrail",
      defaultDimensions: { environment: stage },
    }),
    compute: { kind: "aws-account", service: "lambda", region: required(env, "AWS_REGION") },
    boundaryPolicy: policyFrom(required(env, FUNCTION_ENVIRONMENT.boundaryPolicy)),
    language: env[FUNCTION_ENVIRONMENT.language] || "en",
  };
}
