import type { WorkflowCallback } from "@voxtrail/core";
import { cloudTranscriber, cloudTranscriptionService } from "@voxtrail/providers";
import { selectionFromEnvironment, transcriptionModeOf } from "@voxtrail/workflow";
import { transcribeStage } from "../handlers/transcribe";
import { transcriptionJobHandler } from "../handlers/transcription-job";
import { stageHandler } from "../kernel/stage-handler";
import { lambdaDependencies } from "./lambda-dependencies";
import { lambdaEntry } from "./lambda-handler";

/**
 * Lambda entry point of Transcribe: with a service-job transcriber configured (`amazon-transcribe`),
 * the transcription job's steps over the service's client, resuming the workflow through Step
 * Functions' `SendTaskSuccess`; otherwise the transcriber only.
 */
export const handler = lambdaEntry(async (env) =>
  transcriptionModeOf(selectionFromEnvironment(env)) === "service-job"
    ? transcriptionJobHandler({
        ...(await lambdaDependencies(env, { transcriptionService: cloudTranscriptionService })),
        workflowCallback: await stepFunctionsCallback(),
      })
    : stageHandler(transcribeStage, await lambdaDependencies(env, { transcriber: cloudTranscriber })),
);

/** Step Functions' callback; its SDK loads on the first invocation, not when the function is imported. */
async function stepFunctionsCallback(): Promise<WorkflowCallback> {
  const [{ SFNClient }, { StepFunctionsCallback }] = await Promise.all([
    import("@aws-sdk/client-sfn"),
    import("./step-functions-callback"),
  ]);
  return new StepFunctionsCallback(new SFNClient({}));
}
