import type { ServiceJobTranscriber } from "@voxtrail/workflow";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { optional } from "./provider-roles";

/**
 * The builder of each service-job transcriber `PROVIDER_REGISTRY` declares. Amazon Transcribe's
 * job names start with the selection's `transcribeJobPrefix` (`voxtrail-` unless set), its jobs
 * queue when the selection names a `transcribeDataAccessRoleArn`, and it declares the account and
 * region its client reaches. The provider and its SDK load when it is built, not when this module
 * is imported.
 */
const SERVICE_BUILDERS: Record<ServiceJobTranscriber, NamedBuilder<"transcriptionService">> = {
  "amazon-transcribe": async (selection, clients) => {
    const [{ TranscribeClient }, { AmazonTranscribe }] = await Promise.all([
      import("@aws-sdk/client-transcribe"),
      import("../transcription/amazon-transcribe"),
    ]);
    return AmazonTranscribe.create({
      client: clients.transcribe ?? new TranscribeClient({}),
      ...optional("jobNamePrefix", selection.transcribeJobPrefix),
      ...optional("dataAccessRoleArn", selection.transcribeDataAccessRoleArn),
    });
  },
};

/**
 * The transcription service a selection chose (`amazon-transcribe`), or `undefined` for any other
 * transcriber.
 *
 * @example
 * const service = await cloudTranscriptionService(
 *   { ...selection, transcriber: "amazon-transcribe", transcribeJobPrefix: "voxtrail-prod-" },
 *   {},
 * );
 */
export const cloudTranscriptionService = namedRoleBuilder("transcriber", SERVICE_BUILDERS);
