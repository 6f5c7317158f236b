import { cloudSynthesizer } from "@voxtrail/providers";
import { synthesizePromptStage } from "../handlers/synthesize-prompt";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of SynthesizePrompt: the synthesizer only. */
export const handler = lambdaHandler(synthesizePromptStage, (env) =>
  lambdaDependencies(env, { synthesizer: cloudSynthesizer }),
);
