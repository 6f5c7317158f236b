import { evaluateStacks } from "./evaluate-stacks";
import { type StagePlan, stagePlan } from "./stage-plan";

/** The Cartesia key the rehearsal gives the stage's `sst.Secret` (the deploying shell's `SST_SECRET_<name>`). */
const REHEARSAL_CARTESIA_KEY = "sk_rehearsal_not_a_key";
/** A Sonic model package ARN for stages that create their endpoint, when the shell sets none. */
const REHEARSAL_MODEL_PACKAGE_ARN =
  "arn:aws:sagemaker:us-east-1:123456789012:model-package/cartesia-sonic-rehearsal";

/**
 * The stage as `sst deploy --stage NAME` would deploy it from this shell: the stacks evaluated
 * under Pulumi mocks, with the stage's secret and, when unset, a placeholder model package ARN.
 * `configFile` is the stage file to deploy it with, as `VOXTRAIL_STAGE_CONFIG` names one (which it
 * overrides); the stage's own by default.
 *
 * @example
 * const plan = await evaluateStage("dev");
 */
export async function evaluateStage(
  stage: string,
  options: { configFile?: string } = {},
): Promise<StagePlan> {
  const configFile = options.configFile ?? process.env.VOXTRAIL_STAGE_CONFIG;
  const evaluation = await evaluateStacks(stage, {
    SST_SECRET_CartesiaApiKey: REHEARSAL_CARTESIA_KEY,
    VOXTRAIL_SONIC_MODEL_PACKAGE_ARN:
      process.env.VOXTRAIL_SONIC_MODEL_PACKAGE_ARN ?? REHEARSAL_MODEL_PACKAGE_ARN,
    ...(configFile ? { VOXTRAIL_STAGE_CONFIG: configFile } : {}),
  });
  return stagePlan(stage, evaluation);
}
