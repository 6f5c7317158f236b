import { relative } from "node:path";
// The stage files' schema lives with the stacks; the doctor (packages/operator) reads it the same way.
import { loadStageConfig } from "../../../../stacks/stage-config";
import { UsageError } from "../usage-error";
import type { EndpointSizing } from "./capacity-model";

/** The stage's file gives no instance type or scaling for its Sonic endpoint. */
export class StageSizingUnknown extends Error {
  constructor(stage: string, file: string) {
    super(
      `stage ${stage} (${file}) uses an existing Sonic endpoint: its instance type and scaling are not in the stage file, so there is nothing to size (try --stage production)`,
    );
    this.name = "StageSizingUnknown";
  }
}

/** What a stage name must look like (sst's stage names, as the stage files are named). */
const STAGE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** The model package ARN stood in when the shell sets none: sizing never reads it. */
const SIZING_MODEL_PACKAGE_ARN = "arn:aws:sagemaker:us-east-1:123456789012:model-package/sizing-only";

/**
 * The Sonic endpoint a stage creates, as its stage file says (`sonic.instanceType`,
 * `minInstances`, `maxInstances`), with the file relative to `root`. A stage file that reads its
 * model package ARN from the environment gets a placeholder when the variable is unset, as the
 * rehearsal does: sizing does not use the ARN. Throws {@link StageSizingUnknown} for a stage that
 * uses an existing endpoint, a `UsageError` for a name no stage can have, and a
 * `StageConfigInvalid` for a broken file.
 *
 * @example
 * stageSizing("production", root).sizing; // { instanceType: "ml.g6e.xlarge", minInstances: 2, maxInstances: 6 }
 */
export function stageSizing(
  stage: string,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): { sizing: EndpointSizing; file: string } {
  if (!STAGE_NAME.test(stage)) throw new UsageError(`--stage ${JSON.stringify(stage)} is not a stage name`);
  const { config, file } = loadStageConfig(stage, root, {
    ...env,
    VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: env.VOXTRAIL_SONIC_MODEL_PACKAGE_ARN || SIZING_MODEL_PACKAGE_ARN,
  });
  const sonic = config.sonic;
  const shown = relative(root, file);
  if (sonic === undefined || !("instanceType" in sonic)) throw new StageSizingUnknown(stage, shown);
  return {
    sizing: {
      instanceType: sonic.instanceType,
      minInstances: sonic.minInstances,
      maxInstances: sonic.maxInstances,
    },
    file: shown,
  };
}
