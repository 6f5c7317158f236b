import type { PromptFunction } from "@voxtrail/workflow";
import type { StageHandler } from "../middleware/middy";
import { createPromptHandlers } from "../prompt-handlers";
import { builtOnce } from "./built-once";
import { promptLambdaDependencies } from "./prompt-lambda-dependencies";

const handlers = builtOnce(() => promptLambdaDependencies().then(createPromptHandlers));

/**
 * The handler of one prompts function in Lambda. Dependencies are built on the first invocation
 * and reused by the invocations after it; a failed build is not kept, the next invocation builds again.
 */
export function promptLambdaHandler(fn: PromptFunction): StageHandler<unknown> {
  return async (event, context) => (await handlers())[fn](event, context);
}
