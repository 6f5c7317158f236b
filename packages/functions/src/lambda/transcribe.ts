import { lambdaHandler } from "./lambda-handlers";

/** Lambda entry point of transcribe. */
export const handler = lambdaHandler("transcribe");
