import { GetTranscriptionJobCommand, type TranscribeClient } from "@aws-sdk/client-transcribe";
import type { StageHandler } from "@voxtrail/functions";
import { GET_TRANSCRIPTION_JOB_RESOURCE } from "@voxtrail/workflow";

/**
 * The local handler of the workflow's `aws-sdk:transcribe:getTranscriptionJob` Task, as Step
 * Functions runs that integration: the state's Parameters are the API request, the response (without
 * the SDK's `$metadata`) is the task's result, and an error is named `Transcribe.<Exception>`.
 * aws-local-stepfunctions runs no service integrations itself, so the local runtime answers this
 * resource with `client` (the local Transcribe endpoint's, or any other).
 *
 * @example
 * const handlers = { ...lambdaHandlers, ...transcribeIntegration(client) };
 */
export function transcribeIntegration(client: TranscribeClient): Record<string, StageHandler<unknown>> {
  return {
    [GET_TRANSCRIPTION_JOB_RESOURCE]: async (input) => {
      try {
        const { $metadata, ...response } = await client.send(
          new GetTranscriptionJobCommand(input as { TranscriptionJobName: string }),
        );
        return JSON.parse(JSON.stringify(response));
      } catch (error) {
        const named = new Error((error as Error).message);
        named.name = `Transcribe.${(error as Error).name}`;
        throw named;
      }
    },
  };
}
