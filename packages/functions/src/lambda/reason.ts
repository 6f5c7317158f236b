import { cloudReasoner, cloudRecords } from "@voxtrail/providers";
import { reasonStage } from "../handlers/reason";
import { EMBEDDED_IN_LAMBDA, lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of Reason: the reasoner (the rule-based one runs in Lambda too) and the record lookup. */
export const handler = lambdaHandler(reasonStage, (env) =>
  lambdaDependencies(env, { reasoner: cloudReasoner, records: cloudRecords }, EMBEDDED_IN_LAMBDA),
);
