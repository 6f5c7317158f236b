import { cloudTranscriber } from "@voxtrail/providers";
import { transcribeStage } from "../handlers/transcribe";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaHandler } from "./lambda-handler";

/** Lambda entry point of Transcribe: the transcriber only. */
export const handler = lambdaHandler(transcribeStage, (env) =>
  lambdaDependencies(env, { transcriber: cloudTranscriber }),
);
