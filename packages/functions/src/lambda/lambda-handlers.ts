import type { StageFunction } from "@voxtrail/workflow";
import type { StageHandler } from "../middleware/middy";
import { createStageHandlers } from "../stage-handlers";
import { builtOnce } from "./built-once";
import { lambdaDependencies } from "./lambda-dependencies";

const handlers = builtOnce(() => lambdaDependencies().then(createStageHandlers));

/**
 * The handler of one stage function in Lambda. Dependencies are built on the first invocation and
 * reused by the invocations after it; a failed build is not kept, the next invocation builds again.
 */
export function lambdaHandler(fn: StageFunction): StageHandler<unknown> {
  return async (event, context) => (await handlers())[fn](event, context);
}
