import { recordFailureStage } from "../handlers/record-failure";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";
import { outcomeEvents } from "./outcome-events";

/** Lambda entry point of the failure recorder: no provider, the outcome bus. */
export const handler = lambdaHandler(recordFailureStage, async (env) => ({
  ...(await lambdaDependencies(env)),
  events: await outcomeEvents(env),
}));
