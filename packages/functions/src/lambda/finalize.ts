import { finalizeStage } from "../handlers/finalize";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";
import { outcomeEvents } from "./outcome-events";

/** Lambda entry point of Finalize: no provider, the outcome bus. */
export const handler = lambdaHandler(finalizeStage, async (env) => ({
  ...(await lambdaDependencies(env)),
  events: await outcomeEvents(env),
}));
