import { lambdaHandler } from "./lambda-handlers";

/** Lambda entry point of finalize. */
export const handler = lambdaHandler("finalize");
