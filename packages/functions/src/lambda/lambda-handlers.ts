import type { StageFunction } from "@voxtrail/workflow";
import type { StageHandler } from "../middleware/middy";
import { createStageHandlers } from "../stage-handlers";
import { lambdaDependencies } from "./lambda-dependencies";

let handlers: Promise<Record<StageFunction, StageHandler<unknown>>> | undefined;

/**
 * The handler of one stage function in Lambda. Dependencies are built once per execution
 * environment, on the first invocation, and reused by the invocations after it.
 */
export function lambdaHandler(fn: StageFunction): StageHandler<unknown> {
  return async (event, context) => {
    handlers ??= lambdaDependencies().then(createStageHandlers);
    return (await handlers)[fn](event, context);
  };
}
