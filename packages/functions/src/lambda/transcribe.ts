import { cloudTranscriber, cloudTranscriptionService } from "@voxtrail/providers";
import { selectionFromEnvironment, transcriptionModeOf } from "@voxtrail/workflow";
import { transcribeStage } from "../handlers/transcribe";
import { transcriptionJobHandler } from "../handlers/transcription-job";
import { stageHandler } from "../kernel/stage-handler";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaEntry } from "./lambda-handler";

/**
 * Lambda entry point of Transcribe: with a service-job transcriber configured (`amazon-transcribe`),
 * the transcription job's start and read steps over the service's client; otherwise the
 * transcriber only.
 */
export const handler = lambdaEntry(async (env) =>
  transcriptionModeOf(selectionFromEnvironment(env)) === "service-job"
    ? transcriptionJobHandler(
        await lambdaDependencies(env, { transcriptionService: cloudTranscriptionService }),
      )
    : stageHandler(transcribeStage, await lambdaDependencies(env, { transcriber: cloudTranscriber })),
);
