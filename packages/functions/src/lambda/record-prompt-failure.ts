import { promptLambdaHandler } from "./prompt-lambda-handlers";

/** Lambda entry point of recordPromptFailure. */
export const handler = promptLambdaHandler("recordPromptFailure");
