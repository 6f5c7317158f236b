import { CARTESIA_SECRET, type ProviderSelection } from "../packages/workflow/src";
import type { ArnScope, IamStatement } from "./permissions";
import type { SonicEndpoint } from "./sonic-endpoint";
import {
  boundaryPolicyJson,
  providerSelection,
  type StageConfig,
  selectionEnvironment,
} from "./stage-config";

/** What every function of the stage runs with: where it runs, its providers, its boundary policy. */
export interface FunctionSettings {
  /** The partition, region and account ARNs are built in. */
  scope: $util.Output<ArnScope>;
  /** The configured providers, with the bucket and Sonic endpoint resolved. */
  selection: $util.Output<ProviderSelection>;
  /** The environment every function gets: stage, bucket, boundary policy, providers. */
  environment: $util.Output<Record<string, string>>;
  /** The stage's Cartesia key, when a configured provider calls Cartesia. */
  cartesiaApiKey: sst.Secret | undefined;
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
  sonic: SonicEndpoint | undefined;
}): FunctionSettings {
  const scope = $util
    .all([
      aws.getPartitionOutput().partition,
      aws.getRegionOutput().region,
      aws.getCallerIdentityOutput().accountId,
    ])
    .apply(([partition, region, account]) => ({ partition, region, account }));
  const selection = $util
    .all([bucket.name, sonic?.name])
    .apply(([bucketName, sonicEndpoint]) => providerSelection(config, { bucket: bucketName, sonicEndpoint }));
  const boundaryPolicy = boundaryPolicyJson(config, $cli.paths.root);
  const environment = $util.all([selection, bucket.name]).apply(
    ([selection, bucketName]): Record<string, string> => ({
      ...selectionEnvironment(selection),
      VOXTRAIL_STAGE: $app.stage,
      VOXTRAIL_BOUNDARY_POLICY: boundaryPolicy,
      VOXTRAIL_BUCKET: bucketName,
      POWERTOOLS_SERVICE_NAME: "voxtrail",
    }),
  );
  // The key exists only in stages that chose a Cartesia provider, and is linked only to the
  // functions that call Cartesia (read at first use: packages/functions/src/lambda/linked-secret.ts).
  const callsCartesia =
    config.providers.transcriber === "cartesia-ink" || config.providers.synthesizer === "cartesia-api";
  return {
    scope,
    selection,
    environment,
    cartesiaApiKey: callsCartesia ? new sst.Secret(CARTESIA_SECRET) : undefined,
  };
}

/**
 * One Lambda function of the stage: a handler under packages/functions/src/lambda/, on
 * nodejs22.x, with its size, the shared environment (plus `environment`), the Cartesia key only
 * when it calls Cartesia, and exactly `permissions` (stacks/permissions.ts) instead of `link`'s
 * whole-bucket access.
 *
 * @example
 * stageFunction("StageIngest", settings, { entry: "ingest", size: FUNCTION_SIZES.ingest, callsCartesia: false, permissions });
 */
export function stageFunction(
  name: string,
  settings: FunctionSettings,
  options: {
    entry: string;
    size: { memory: `${number} MB`; timeout: `${number} seconds` };
    callsCartesia: boolean;
    environment?: Record<string, $util.Input<string>>;
    permissions: $util.Output<IamStatement[]>;
  },
): sst.aws.Function {
  const handler = `packages/functions/src/lambda/${options.entry}.handler`;
  return new sst.aws.Function(name, {
    handler,
    runtime: "nodejs22.x",
    ...options.size,
    link: settings.cartesiaApiKey && options.callsCartesia ? [settings.cartesiaApiKey] : [],
    environment: $util
      .all([settings.environment, $util.output(options.environment ?? {})])
      .apply(([shared, own]) => ({ ...shared, ...own })),
    permissions: options.permissions,
  });
}
