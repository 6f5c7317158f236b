import { openBatchStage } from "../handlers/open-batch";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of OpenBatch: no provider, no call to any AWS service. */
export const handler = lambdaHandler(openBatchStage, (env) => lambdaDependencies(env));
