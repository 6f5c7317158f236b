import { TranscribeClient } from "@aws-sdk/client-transcribe";
import { choice, TRANSCRIBERS } from "@voxtrail/workflow";
import { AmazonTranscribe } from "../transcription/amazon-transcribe";
import { optional, type RoleBuilder } from "./provider-roles";

/**
 * The transcription service a selection chose (`amazon-transcribe`), or `undefined` for any other
 * transcriber. Its job names start with the selection's `transcribeJobPrefix` (`voxtrail-` unless
 * set), and it declares the account and region its client reaches.
 *
 * @example
 * const service = await cloudTranscriptionService(
 *   { ...selection, transcriber: "amazon-transcribe", transcribeJobPrefix: "voxtrail-prod-" },
 *   {},
 * );
 */
export const cloudTranscriptionService: RoleBuilder<"transcriptionService"> = async (selection, clients) => {
  const transcriber = choice(TRANSCRIBERS, selection.transcriber, "transcriber");
  if (transcriber !== "amazon-transcribe") return undefined;
  return AmazonTranscribe.create({
    client: clients.transcribe ?? new TranscribeClient({}),
    ...optional("jobNamePrefix", selection.transcribeJobPrefix),
  });
};
