import { lambdaHandler } from "./lambda-handlers";

/** Lambda entry point of ingest. */
export const handler = lambdaHandler("ingest");
