import { lambdaHandler } from "./lambda-handlers";

/** Lambda entry point of the failure recorder. */
export const handler = lambdaHandler("recordFailure");
