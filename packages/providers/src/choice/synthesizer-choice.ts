import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import {
  type CloudProviderName,
  DEFAULT_CARTESIA_TTS_MODEL,
  SYNTHESIZER_LANGUAGES,
} from "@voxtrail/workflow";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { CartesiaApiSynthesizer } from "../synthesis/cartesia-api";
import { SonicSageMakerSynthesizer } from "../synthesis/sonic-sagemaker";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { optional, required } from "./provider-roles";

/**
 * The builder of each cloud synthesizer `PROVIDER_REGISTRY` declares. Sonic on SageMaker declares
 * the account and region its client reaches.
 */
const SYNTHESIZER_BUILDERS: Record<CloudProviderName<"synthesizer">, NamedBuilder<"synthesizer">> = {
  "cartesia-api": async (selection) =>
    new CartesiaApiSynthesizer({
      apiKey: required(selection.cartesiaApiKey, "cartesiaApiKey", "cartesia-api"),
      model: selection.cartesiaTtsModel ?? DEFAULT_CARTESIA_TTS_MODEL,
      voiceId: required(selection.voiceId, "voiceId", "cartesia-api"),
      ...optional("baseURL", selection.cartesiaBaseUrl),
    }),
  "sonic-sagemaker": async (selection, clients) => {
    const endpointName = required(selection.sonicEndpoint, "sonicEndpoint", "sonic-sagemaker");
    const client = clients.sagemaker ?? new SageMakerRuntimeClient({});
    return new SonicSageMakerSynthesizer({
      client,
      endpointName,
      voiceId: required(selection.voiceId, "voiceId", "sonic-sagemaker"),
      languages: SYNTHESIZER_LANGUAGES["sonic-sagemaker"],
      processor: {
        provider: "sonic-sagemaker",
        model: selection.sonicModel ?? "cartesia-sonic",
        version: selection.sonicModelVersion ?? `as deployed on endpoint ${endpointName}`,
        endpoint: endpointName,
        boundary: await awsAccountBoundary(client, "sagemaker"),
      },
    });
  },
};

/**
 * The cloud synthesizer a selection chose (`sonic-sagemaker`, `cartesia-api`), or `undefined` for
 * the embedded one.
 *
 * @example
 * const synthesizer = await cloudSynthesizer({ ...selection, synthesizer: "sonic-sagemaker", sonicEndpoint, voiceId }, {});
 */
export const cloudSynthesizer = namedRoleBuilder("synthesizer", SYNTHESIZER_BUILDERS);
