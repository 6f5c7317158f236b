import { recordPromptFailureStage } from "../handlers/record-prompt-failure";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of RecordPromptFailure: no provider. */
export const handler = lambdaHandler(recordPromptFailureStage, (env) => lambdaDependencies(env));
