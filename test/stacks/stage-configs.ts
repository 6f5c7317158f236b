import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StageConfig } from "../../stacks/stage-config";
import { scratchDirectory } from "../support/temporary-directory";

/** A model package ARN of the shape AWS Marketplace gives a subscriber (no real subscription behind it). */
export const TEST_MODEL_PACKAGE_ARN =
  "arn:aws:sagemaker:us-east-1:865070037744:model-package/cartesia-sonic-3-6-0123456789abcdef";

/**
 * What the deploying shell of a production stage sets: production.json reads the Sonic model
 * package ARN from `VOXTRAIL_SONIC_MODEL_PACKAGE_ARN` (`{"fromEnvironment": ...}`).
 */
export const PRODUCTION_ENV = { VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: TEST_MODEL_PACKAGE_ARN };

/** The Cartesia key the deploying shell would hold as the stage's secret (sst reads SST_SECRET_<name>). */
export const CARTESIA_SECRET_ENV = { SST_SECRET_CartesiaApiKey: "sk_test_mock_cartesia_value" };

/**
 * A checked-in stage configuration, as JSON (as written: production's model package ARN is still
 * a `{"fromEnvironment": ...}` reference; {@link subscribedProductionConfig} fills it in).
 */
export function repositoryConfig(stage: "dev" | "production"): StageConfig {
  return JSON.parse(
    readFileSync(new URL(`../../config/stages/${stage}.json`, import.meta.url), "utf8"),
  ) as StageConfig;
}

/** Writes `config` to a temporary file and returns the environment that points the stacks at it. */
export function configEnvironment(config: unknown): { VOXTRAIL_STAGE_CONFIG: string } {
  const file = join(scratchDirectory("voxtrail-stage-config-"), "stage.json");
  writeFileSync(file, JSON.stringify(config));
  return { VOXTRAIL_STAGE_CONFIG: file };
}

/**
 * The repository's production configuration with the one value an account supplies, the Sonic
 * model package ARN of its Marketplace subscription, written in (a stage file may give the ARN
 * itself instead of reading it from the environment): for variants of production.json.
 */
export function subscribedProductionConfig(): StageConfig {
  const config = repositoryConfig("production");
  return {
    ...config,
    sonic: { ...config.sonic, modelPackageArn: TEST_MODEL_PACKAGE_ARN } as StageConfig["sonic"],
  };
}
