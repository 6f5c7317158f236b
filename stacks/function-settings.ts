import { REDACTION_ENVIRONMENT } from "@voxtrail/core";
import {
  CARTESIA_SECRET,
  FUNCTION_BUNDLING,
  FUNCTION_ENVIRONMENT,
  FUNCTION_RUNTIME,
  type FunctionSize,
  PIPELINE_METRICS,
  type ProviderSelection,
  providerDeclaration,
} from "@voxtrail/workflow";
import { type ArnScope, DEPLOYED_FUNCTIONS, type DeployedFunction, type IamStatement } from "./permissions";
import type { DeployedSonicEndpoint } from "./sonic-endpoint";
import { boundaryPolicyJson, type StageConfig, selectionEnvironment, stageSelection } from "./stage-config";
import { lambdaTrustPolicy } from "./trust-policies";

/** What every function of the stage runs with: where it runs, its providers, its boundary policy. */
export interface FunctionSettings {
  /** The partition, region and account ARNs are built in. */
  scope: $util.Output<ArnScope>;
  /** The configured providers, with the bucket, Sonic endpoint and transcription job prefix resolved. */
  selection: $util.Output<ProviderSelection>;
  /** The environment every function gets: stage, bucket, boundary policy, providers. */
  environment: $util.Output<Record<string, string>>;
  /** The stage's Cartesia key, when a configured provider calls Cartesia. */
  cartesiaApiKey: sst.Secret | undefined;
  /** Whether each function calls Cartesia with the stage's providers (and so gets the key). */
  callsCartesia: Record<DeployedFunction, boolean>;
  /** The bucket has Object Lock: lineage writes carry retention (permissions.ts `retainsLineage`). */
  retainsLineage: boolean;
  /** The stage redacts callers' data (docs/redaction.md; permissions.ts `redacts`). */
  redacts: boolean;
}

/** The provider roles each function that can call a provider's service builds. */
const FUNCTION_ROLES: Partial<Record<DeployedFunction, readonly ("transcriber" | "synthesizer")[]>> = {
  transcribe: ["transcriber"],
  synthesize: ["synthesizer"],
  synthesizePrompt: ["synthesizer"],
};

/**
 * Whether a function calls Cartesia with the stage's providers: it builds a role whose chosen
 * provider declares the Cartesia secret (`PROVIDER_REGISTRY`).
 */
function callsCartesiaWith(fn: DeployedFunction, providers: StageConfig["providers"]): boolean {
  return (FUNCTION_ROLES[fn] ?? []).some(
    (role) => providerDeclaration(role, providers[role])?.secret === "cartesia",
  );
}

/**
 * The settings the stage's functions share, made once per stage (the Cartesia secret can only be
 * declared once). The boundary policy is read from the project root (`$cli.paths.root`): the CLI
 * runs a bundle of the stacks from `.sst/platform/`, so `import.meta.url` does not point here.
 *
 * @example
 * const settings = functionSettings({ bucket, config, sonic });
 */
export function functionSettings({
  bucket,
  config,
  sonic,
}: {
  bucket: sst.aws.Bucket;
  config: StageConfig;
  sonic: DeployedSonicEndpoint | undefined;
}): FunctionSettings {
  const scope = $util
    .all([
      aws.getPartitionOutput().partition,
      aws.getRegionOutput().region,
      aws.getCallerIdentityOutput().accountId,
    ])
    .apply(([partition, region, account]) => ({ partition, region, account }));
  const selection = $util
    .all([bucket.name, sonic?.name, scope])
    .apply(([bucketName, sonicEndpoint, resolvedScope]) =>
      stageSelection(config, {
        app: $app.name,
        stage: $app.stage,
        bucket: bucketName,
        scope: resolvedScope,
        sonicEndpoint,
      }),
    );
  const boundaryPolicy = boundaryPolicyJson(config, $cli.paths.root);
  const environment = $util.all([selection, bucket.name]).apply(
    ([selection, bucketName]): Record<string, string> => ({
      ...selectionEnvironment(selection),
      [FUNCTION_ENVIRONMENT.stage]: $app.stage,
      [FUNCTION_ENVIRONMENT.boundaryPolicy]: boundaryPolicy,
      [FUNCTION_ENVIRONMENT.bucket]: bucketName,
      ...(config.languages ? { [FUNCTION_ENVIRONMENT.languages]: config.languages.join(",") } : {}),
      ...(config.storage.objectLock
        ? {
            [FUNCTION_ENVIRONMENT.lineageRetention]: `${config.storage.objectLock.mode}:${config.storage.objectLock.days}`,
          }
        : {}),
      ...(config.redaction ? { [REDACTION_ENVIRONMENT]: JSON.stringify(config.redaction) } : {}),
      POWERTOOLS_SERVICE_NAME: PIPELINE_METRICS.service,
    }),
  );
  // The key exists only in stages that chose a Cartesia provider, and is linked only to the
  // functions that call Cartesia (read at first use: packages/functions/src/lambda/linked-secret.ts).
  const callsCartesia = Object.fromEntries(
    DEPLOYED_FUNCTIONS.map((fn) => [fn, callsCartesiaWith(fn, config.providers)]),
  ) as Record<DeployedFunction, boolean>;
  return {
    scope,
    selection,
    environment,
    cartesiaApiKey: Object.values(callsCartesia).some(Boolean) ? new sst.Secret(CARTESIA_SECRET) : undefined,
    callsCartesia,
    retainsLineage: config.storage.objectLock !== undefined,
    redacts: config.redaction !== undefined,
  };
}

/**
 * One Lambda function of the stage: a handler under packages/functions/src/lambda/, on
 * `FUNCTION_RUNTIME` and bundled with `FUNCTION_BUNDLING` (@voxtrail/workflow), with its size,
 * the shared environment (plus `environment`), the Cartesia key only when it calls Cartesia, and
 * exactly `permissions` (stacks/permissions.ts) instead of `link`'s whole-bucket access. Its role
 * (sst's, with `AWSLambdaBasicExecutionRole` attached for its log group) may be assumed by Lambda
 * alone ({@link lambdaTrustPolicy}).
 *
 * @example
 * stageFunction("StageIngest", settings, { entry: "ingest", size: FUNCTION_SIZES.ingest, callsCartesia: false, permissions });
 */
export function stageFunction(
  name: string,
  settings: FunctionSettings,
  options: {
    entry: string;
    size: FunctionSize;
    callsCartesia: boolean;
    environment?: Record<string, $util.Input<string>>;
    permissions: $util.Output<IamStatement[]>;
    /** Executions it may have at once (Lambda's reserved concurrency), where more would only race. */
    reservedConcurrency?: number;
  },
): sst.aws.Function {
  const handler = `packages/functions/src/lambda/${options.entry}.handler`;
  return new sst.aws.Function(name, {
    handler,
    runtime: FUNCTION_RUNTIME,
    nodejs: FUNCTION_BUNDLING,
    ...options.size,
    link: settings.cartesiaApiKey && options.callsCartesia ? [settings.cartesiaApiKey] : [],
    environment: $util
      .all([settings.environment, $util.output(options.environment ?? {})])
      .apply(([shared, own]) => ({ ...shared, ...own })),
    permissions: options.permissions,
    transform: { role: { assumeRolePolicy: JSON.stringify(lambdaTrustPolicy()) } },
    ...(options.reservedConcurrency === undefined
      ? {}
      : { concurrency: { reserved: options.reservedConcurrency } }),
  });
}
