import { promptLambdaHandler } from "./prompt-lambda-handlers";

/** Lambda entry point of writePromptsReport. */
export const handler = promptLambdaHandler("writePromptsReport");
