import { cloudSynthesizer } from "@voxtrail/providers";
import { synthesizeStage } from "../handlers/synthesize";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of Synthesize: the synthesizer only. */
export const handler = lambdaHandler(synthesizeStage, (env) =>
  lambdaDependencies(env, { synthesizer: cloudSynthesizer }),
);
