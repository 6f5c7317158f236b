import { SFNClient } from "@aws-sdk/client-sfn";
import { StepFunctionsLiveness } from "@voxtrail/lineage";
import { ingestStage } from "../handlers/ingest";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of Ingest: a claim asks Step Functions whether its owner still runs. */
export const handler = lambdaHandler(ingestStage, async (env) => ({
  ...(await lambdaDependencies(env)),
  executions: new StepFunctionsLiveness(new SFNClient({})),
}));
