import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { S3Client } from "@aws-sdk/client-s3";
import { SFNClient } from "@aws-sdk/client-sfn";
import { BoundaryPolicy, BoundaryPolicyInvalid, InvalidInput } from "@voxtrail/core";
import { cloudProviders, LocalReasoner } from "@voxtrail/providers";
import { S3Store } from "@voxtrail/storage";
import {
  CARTESIA_SECRET,
  FUNCTION_ENVIRONMENT,
  PROVIDER_ENVIRONMENT,
  selectionFromEnvironment,
} from "@voxtrail/workflow";
import { StepFunctionsLiveness } from "../claims/step-functions-liveness";
import type { StageDependencies } from "../dependencies";
import { EventBridgePublisher } from "../events/eventbridge-publisher";
import { linkedSecret } from "./linked-secret";

/**
 * The dependencies of a stage function in Lambda, from its environment: the stage's bucket
 * through S3, outcome events to the stage's bus, the boundary policy the stack put in the
 * environment (the repository's `config/boundary-policy/<stage>.json`), and the cloud providers
 * the environment selects. Embedded engines that need this machine (pocketsphinx, the flite
 * endpoint, the fixtures' records file) cannot run in Lambda: choosing them is an `InvalidInput`
 * naming the variable to set. The rule-based reasoner is plain code and runs anywhere.
 *
 * @example
 * // VOXTRAIL_BUCKET=... VOXTRAIL_EVENT_BUS=... VOXTRAIL_BOUNDARY_POLICY='{...}' VOXTRAIL_TRANSCRIBER=cartesia-ink ...
 * const deps = await lambdaDependencies(process.env);
 */
export async function lambdaDependencies(env: NodeJS.ProcessEnv = process.env): Promise<StageDependencies> {
  const stage = required(env, FUNCTION_ENVIRONMENT.stage);
  const selection = selectionFromEnvironment(env);
  // Deployed, the Cartesia key is the stage's sst.Secret, linked only to the functions that call
  // Cartesia; CARTESIA_API_KEY in the environment still wins (tests, a function run by hand).
  selection.cartesiaApiKey ??= linkedSecret(CARTESIA_SECRET);
  const providers = await cloudProviders(selection);
  return {
    store: new S3Store({ client: new S3Client({}), bucket: required(env, FUNCTION_ENVIRONMENT.bucket) }),
    transcriber: providers.transcriber ?? notInLambda("transcriber", "cartesia-ink"),
    reasoner: providers.reasoner ?? new LocalReasoner(),
    records: providers.records ?? notInLambda("records", "s3"),
    synthesizer: providers.synthesizer ?? notInLambda("synthesizer", "sonic-sagemaker or cartesia-api"),
    events: new EventBridgePublisher({
      client: new EventBridgeClient({}),
      busName: required(env, FUNCTION_ENVIRONMENT.eventBus),
    }),
    logger: new Logger({ serviceName: "voxtrail" }),
    metrics: new Metrics({
      namespace: "voxtrail",
      serviceName: "voxtrail",
      defaultDimensions: { environment: stage },
    }),
    executions: new StepFunctionsLiveness(new SFNClient({})),
    compute: { kind: "aws-account", service: "lambda", region: required(env, "AWS_REGION") },
    boundaryPolicy: policyFrom(required(env, FUNCTION_ENVIRONMENT.boundaryPolicy)),
    language: env[FUNCTION_ENVIRONMENT.language] || "en",
    replyFormat: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
    maxSourceBytes: 50 * 1024 * 1024,
  };
}

/** The trimmed value of an environment variable that must be set; `InvalidInput` naming it otherwise. */
export function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new InvalidInput(`${name} is not set`);
  return value;
}

function notInLambda(role: keyof typeof PROVIDER_ENVIRONMENT, choices: string): never {
  throw new InvalidInput(
    `the local ${role} needs this machine's engines and cannot run in Lambda: set ${PROVIDER_ENVIRONMENT[role]} to ${choices}`,
  );
}

/** The boundary policy a stage function was given as JSON in its environment. */
export function policyFrom(json: string): BoundaryPolicy {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new BoundaryPolicyInvalid(`${FUNCTION_ENVIRONMENT.boundaryPolicy} is not JSON`);
  }
  const parsed = BoundaryPolicy.safeParse(value);
  if (!parsed.success)
    throw new BoundaryPolicyInvalid(`${FUNCTION_ENVIRONMENT.boundaryPolicy} is not a boundary policy`);
  return parsed.data;
}
