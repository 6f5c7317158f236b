import type { PromptFunction } from "@voxtrail/workflow";
import type { StageHandler } from "../middleware/middy";
import { createPromptHandlers } from "../prompt-handlers";
import { promptLambdaDependencies } from "./prompt-lambda-dependencies";

let handlers: Promise<Record<PromptFunction, StageHandler<unknown>>> | undefined;

/**
 * The handler of one prompts function in Lambda. Dependencies are built once per execution
 * environment, on the first invocation, and reused by the invocations after it.
 */
export function promptLambdaHandler(fn: PromptFunction): StageHandler<unknown> {
  return async (event, context) => {
    handlers ??= promptLambdaDependencies().then(createPromptHandlers);
    return (await handlers)[fn](event, context);
  };
}
