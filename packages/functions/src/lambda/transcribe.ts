import { cloudTranscriber, cloudTranscriptionService } from "@voxtrail/providers";
import { selectionFromEnvironment } from "@voxtrail/workflow";
import { transcribeStage } from "../handlers/transcribe";
import { transcriptionJobHandler } from "../handlers/transcription-job";
import { stageHandler } from "../kernel/stage-handler";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaEntry } from "./lambda-handler";

/**
 * Lambda entry point of Transcribe: with `amazon-transcribe` configured, the transcription job's
 * start and read steps over the Transcribe client; otherwise the transcriber only.
 */
export const handler = lambdaEntry(async (env) =>
  selectionFromEnvironment(env).transcriber === "amazon-transcribe"
    ? transcriptionJobHandler(
        await lambdaDependencies(env, { transcriptionService: cloudTranscriptionService }),
      )
    : stageHandler(transcribeStage, await lambdaDependencies(env, { transcriber: cloudTranscriber })),
);
