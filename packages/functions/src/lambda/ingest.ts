import { StepFunctionsLiveness } from "@voxtrail/lineage";
import { ingestStage } from "../handlers/ingest";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of Ingest: a claim asks Step Functions whether its owner still runs. */
export const handler = lambdaHandler(ingestStage, async (env) => {
  // Step Functions' client loads on the first invocation, not when the function is imported.
  const { SFNClient } = await import("@aws-sdk/client-sfn");
  return { ...(await lambdaDependencies(env)), executions: new StepFunctionsLiveness(new SFNClient({})) };
});
