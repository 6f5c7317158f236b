import { promptLambdaHandler } from "./prompt-lambda-handlers";

/** Lambda entry point of synthesizePrompt. */
export const handler = promptLambdaHandler("synthesizePrompt");
