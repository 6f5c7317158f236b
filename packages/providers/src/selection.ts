import type { ProviderSelection } from "@voxtrail/workflow";
import { buildProviders, type RoleBuilders } from "./choice/build-providers";
import type { ProviderClients, Providers } from "./choice/provider-roles";
import { cloudReasoner } from "./choice/reasoner-choice";
import { cloudRecords } from "./choice/records-choice";
import { cloudSynthesizer } from "./choice/synthesizer-choice";
import { cloudTranscriber } from "./choice/transcriber-choice";

/** Every role's cloud builder: for a runtime that may fill any role (the local runtime). */
export const CLOUD_BUILDERS: RoleBuilders<keyof Providers> = {
  transcriber: cloudTranscriber,
  reasoner: cloudReasoner,
  synthesizer: cloudSynthesizer,
  records: cloudRecords,
};

/** The cloud providers a selection asked for; `undefined` where it chose `local`. */
export type SelectedProviders = { [K in keyof Providers]: Providers[K] | undefined };

/**
 * The cloud providers a selection asks for, every role, `undefined` where it chose `local`: see
 * {@link buildProviders}.
 *
 * @example
 * const providers = await cloudProviders({
 *   transcriber: "local",
 *   reasoner: "bedrock",
 *   synthesizer: "sonic-sagemaker",
 *   bedrockModelId: "anthropic.claude-3-5-haiku-20241022-v1:0",
 *   sonicEndpoint: "sonic-3-6",
 *   voiceId: "bf0a246a-8642-498a-9950-80c35e9276b5",
 * });
 * const synthesizer = providers.synthesizer ?? localSynthesizer;
 */
export function cloudProviders(
  selection: ProviderSelection,
  clients: ProviderClients = {},
): Promise<SelectedProviders> {
  return buildProviders(selection, CLOUD_BUILDERS, { clients });
}
