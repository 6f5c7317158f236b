import type { RoleBuilders } from "./build-providers";
import type { Providers } from "./provider-roles";
import { cloudReasoner } from "./reasoner-choice";
import { cloudRecords } from "./records-choice";
import { cloudSynthesizer } from "./synthesizer-choice";
import { cloudTranscriber } from "./transcriber-choice";

/**
 * Every role's cloud builder: for a runtime that may fill any role (the local runtime). A Lambda
 * entry point passes only its stage's builders instead, so it bundles no other SDK.
 *
 * @example
 * const providers = await buildProviders(selection, CLOUD_BUILDERS, { embedded });
 */
export const CLOUD_BUILDERS: RoleBuilders<keyof Providers> = {
  transcriber: cloudTranscriber,
  reasoner: cloudReasoner,
  synthesizer: cloudSynthesizer,
  records: cloudRecords,
};
