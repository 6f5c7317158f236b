import { preparePromptsStage } from "../handlers/prepare-prompts";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of PreparePrompts: no provider. */
export const handler = lambdaHandler(preparePromptsStage, (env) => lambdaDependencies(env));
