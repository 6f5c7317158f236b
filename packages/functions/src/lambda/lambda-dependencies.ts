import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { S3Client } from "@aws-sdk/client-s3";
import {
  BoundaryPolicy,
  BoundaryPolicyInvalid,
  InvalidInput,
  redactionFromEnvironment,
} from "@voxtrail/core";
import {
  buildProviders,
  type EmbeddedProviders,
  embeddedReasoner,
  type ProviderRole,
  type Providers,
  ROLE_SETTING,
  type RoleBuilders,
} from "@voxtrail/providers";
import { retentionFrom, S3Store } from "@voxtrail/storage";
import {
  CARTESIA_SECRET,
  FUNCTION_ENVIRONMENT,
  PIPELINE_METRICS,
  PROVIDER_ENVIRONMENT,
  providersWhere,
  RETAINED_PREFIXES,
  selectionFromEnvironment,
} from "@voxtrail/workflow";
import { languagesFromEnvironment } from "../call-language";
import type { StageDependencies } from "../dependencies";
import { linkedSecret } from "./linked-secret";

/**
 * The embedded engines that run in Lambda: the rule-based reasoner, plain code, loaded only when
 * the selection chooses it.
 */
export const EMBEDDED_IN_LAMBDA = {
  reasoner: embeddedReasoner,
} satisfies EmbeddedProviders<"reasoner">;

/** What every function gets in Lambda, whatever its stage: see {@link lambdaDependencies}. */
export type FunctionDependencies = Pick<
  StageDependencies,
  | "store"
  | "logger"
  | "metrics"
  | "compute"
  | "boundaryPolicy"
  | "language"
  | "languages"
  | "redaction"
  | "replyFormat"
  | "maxSourceBytes"
>;

/**
 * The dependencies of a stage function in Lambda, from its environment: the stage's bucket
 * through S3, Powertools Logger and Metrics (environment as a default dimension), the boundary
 * policy the stack put in the environment (the repository's `config/boundary-policy/<stage>.json`),
 * and a provider for each role `builders` names, chosen by `buildProviders` from the environment's
 * selection. Each entry point passes only the builders of the roles its stage calls, so it bundles
 * no other provider's SDK, and the embedded engines that can run in Lambda (`embedded`: the
 * rule-based reasoner, plain code). Embedded engines that need this machine (pocketsphinx, the
 * flite endpoint, the fixtures' records file) cannot: choosing one is an `InvalidInput` naming
 * the variable to set.
 *
 * @example
 * // VOXTRAIL_BUCKET=... VOXTRAIL_BOUNDARY_POLICY='{...}' VOXTRAIL_TRANSCRIBER=cartesia-ink ...
 * const deps = await lambdaDependencies(process.env, { transcriber: cloudTranscriber });
 */
export async function lambdaDependencies<R extends ProviderRole = never>(
  env: NodeJS.ProcessEnv = process.env,
  builders: RoleBuilders<R> = {} as RoleBuilders<R>,
  embedded: EmbeddedProviders<R> = {},
): Promise<FunctionDependencies & { [K in R]: Providers[K] }> {
  const stage = requiredEnv(env, FUNCTION_ENVIRONMENT.stage);
  const selection = selectionFromEnvironment(env);
  // Deployed, the Cartesia key is the stage's sst.Secret, linked only to the functions that call
  // Cartesia; CARTESIA_API_KEY in the environment still wins (tests, a function run by hand).
  selection.cartesiaApiKey ??= linkedSecret(CARTESIA_SECRET);
  const built = await buildProviders(selection, builders, { embedded });
  const providers = Object.fromEntries(
    Object.entries(built).map(([role, provider]) => [role, provider ?? notInLambda(role as ProviderRole)]),
  ) as { [K in R]: Providers[K] };
  const redaction = redactionFromEnvironment(env);
  return {
    store: stageStore(env),
    logger: new Logger({ serviceName: PIPELINE_METRICS.service }),
    metrics: new Metrics({
      namespace: PIPELINE_METRICS.namespace,
      serviceName: PIPELINE_METRICS.service,
      defaultDimensions: { environment: stage },
    }),
    compute: { kind: "aws-account", service: "lambda", region: requiredEnv(env, "AWS_REGION") },
    boundaryPolicy: policyFrom(requiredEnv(env, FUNCTION_ENVIRONMENT.boundaryPolicy)),
    language: env[FUNCTION_ENVIRONMENT.language] || "en",
    ...languagesFromEnvironment(env),
    ...(redaction ? { redaction } : {}),
    replyFormat: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
    maxSourceBytes: 50 * 1024 * 1024,
    ...providers,
  };
}

/**
 * The stage's bucket as every function writes it: through S3, with the stage's lineage retention
 * on the audit trail alone (records, summaries, digests, erasure records) when its bucket has
 * Object Lock.
 *
 * @example
 * const store = stageStore(process.env); // VOXTRAIL_BUCKET, VOXTRAIL_LINEAGE_RETENTION
 */
export function stageStore(env: NodeJS.ProcessEnv): S3Store {
  return new S3Store({
    client: new S3Client({}),
    bucket: requiredEnv(env, FUNCTION_ENVIRONMENT.bucket),
    retention: retentionFrom(env[FUNCTION_ENVIRONMENT.lineageRetention], RETAINED_PREFIXES),
  });
}

/** The trimmed value of an environment variable that must be set; `InvalidInput` naming it otherwise. */
export function requiredEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new InvalidInput(`${name} is not set`);
  return value;
}

function notInLambda(role: ProviderRole): never {
  const setting = ROLE_SETTING[role];
  const choices = providersWhere(setting, (declared) => declared.lambda).join(" or ");
  throw new InvalidInput(
    `the local ${setting} needs this machine's engines and cannot run in Lambda: set ${PROVIDER_ENVIRONMENT[setting]} to ${choices}`,
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
