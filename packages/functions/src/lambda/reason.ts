import { lambdaHandler } from "./lambda-handlers";

/** Lambda entry point of reason. */
export const handler = lambdaHandler("reason");
