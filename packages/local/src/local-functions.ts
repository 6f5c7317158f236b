import { STAGE_FUNCTIONS, type StageFunction } from "@voxtrail/workflow";

/**
 * The ARNs the local runtime gives the stage functions in the definition it runs. They have the
 * shape of real Lambda ARNs (the engine validates them) in a placeholder account.
 */
export const LOCAL_FUNCTION_ARNS = Object.fromEntries(
  STAGE_FUNCTIONS.map((fn) => [fn, `arn:aws:lambda:us-east-1:000000000000:function:voxtrail-local-${fn}`]),
) as Record<StageFunction, string>;
