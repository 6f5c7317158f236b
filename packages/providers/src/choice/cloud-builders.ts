import type { RoleBuilders } from "./build-providers";
import type { Providers } from "./provider-roles";
import { cloudReasoner } from "./reasoner-choice";
import { cloudRecords } from "./records-choice";
import { cloudSynthesizer } from "./synthesizer-choice";
import { cloudTranscriber } from "./transcriber-choice";

/**
 * The cloud builder of every role a stage always fills: for a runtime that may fill any of them
 * (the local runtime). A Lambda entry point passes only its stage's builders instead, so it
 * bundles no other SDK. `transcriptionService` is not among them: it fills the Transcribe stage
 * instead of `transcriber` when the selection chooses a service job (`cloudTranscriptionService`).
 *
 * @example
 * const providers = await buildProviders(selection, CLOUD_BUILDERS, { embedded });
 */
export const CLOUD_BUILDERS: RoleBuilders<Exclude<keyof Providers, "transcriptionService">> = {
  transcriber: cloudTranscriber,
  reasoner: cloudReasoner,
  synthesizer: cloudSynthesizer,
  records: cloudRecords,
};
