import { lambdaHandler } from "./lambda-handlers";

/** Lambda entry point of synthesize. */
export const handler = lambdaHandler("synthesize");
