import { promptLambdaHandler } from "./prompt-lambda-handlers";

/** Lambda entry point of preparePrompts. */
export const handler = promptLambdaHandler("preparePrompts");
