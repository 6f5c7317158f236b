import {
  type CloudProviderName,
  DEFAULT_CARTESIA_TTS_MODEL,
  SYNTHESIZER_LANGUAGES,
} from "@voxtrail/workflow";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { optional, required } from "./provider-roles";

/**
 * The builder of each cloud synthesizer `PROVIDER_REGISTRY` declares. Sonic on SageMaker declares
 * the account and region its client reaches. Each provider and its SDK load when it is built (a
 * Lambda function's first invocation), not when this module is imported.
 */
const SYNTHESIZER_BUILDERS: Record<CloudProviderName<"synthesizer">, NamedBuilder<"synthesizer">> = {
  "cartesia-api": async (selection) => {
    const apiKey = required(selection.cartesiaApiKey, "cartesiaApiKey", "cartesia-api");
    const voiceId = required(selection.voiceId, "voiceId", "cartesia-api");
    const { CartesiaApiSynthesizer } = await import("../synthesis/cartesia-api");
    return new CartesiaApiSynthesizer({
      apiKey,
      model: selection.cartesiaTtsModel ?? DEFAULT_CARTESIA_TTS_MODEL,
      voiceId,
      ...optional("baseURL", selection.cartesiaBaseUrl),
    });
  },
  "sonic-sagemaker": async (selection, clients) => {
    const endpointName = required(selection.sonicEndpoint, "sonicEndpoint", "sonic-sagemaker");
    const voiceId = required(selection.voiceId, "voiceId", "sonic-sagemaker");
    const [{ SageMakerRuntimeClient }, { SonicSageMakerSynthesizer }] = await Promise.all([
      import("@aws-sdk/client-sagemaker-runtime"),
      import("../synthesis/sonic-sagemaker"),
    ]);
    const client = clients.sagemaker ?? new SageMakerRuntimeClient({});
    return new SonicSageMakerSynthesizer({
      client,
      endpointName,
      voiceId,
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
