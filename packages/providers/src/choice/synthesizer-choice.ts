import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import { choice, DEFAULT_CARTESIA_TTS_MODEL, SYNTHESIZER_LANGUAGES, SYNTHESIZERS } from "@voxtrail/workflow";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { CartesiaApiSynthesizer } from "../synthesis/cartesia-api";
import { SonicSageMakerSynthesizer } from "../synthesis/sonic-sagemaker";
import { optional, type RoleBuilder, required } from "./provider-roles";

/**
 * The cloud synthesizer a selection chose (`sonic-sagemaker`, `cartesia-api`), or `undefined` for
 * the embedded one. Sonic on SageMaker declares the account and region its client reaches.
 *
 * @example
 * const synthesizer = await cloudSynthesizer({ ...selection, synthesizer: "sonic-sagemaker", sonicEndpoint, voiceId }, {});
 */
export const cloudSynthesizer: RoleBuilder<"synthesizer"> = async (selection, clients) => {
  const synthesizer = choice(SYNTHESIZERS, selection.synthesizer, "synthesizer");
  if (synthesizer === "cartesia-api") {
    return new CartesiaApiSynthesizer({
      apiKey: required(selection.cartesiaApiKey, "cartesiaApiKey", synthesizer),
      model: selection.cartesiaTtsModel ?? DEFAULT_CARTESIA_TTS_MODEL,
      voiceId: required(selection.voiceId, "voiceId", synthesizer),
      ...optional("baseURL", selection.cartesiaBaseUrl),
    });
  }
  if (synthesizer === "sonic-sagemaker") {
    const endpointName = required(selection.sonicEndpoint, "sonicEndpoint", synthesizer);
    const client = clients.sagemaker ?? new SageMakerRuntimeClient({});
    return new SonicSageMakerSynthesizer({
      client,
      endpointName,
      voiceId: required(selection.voiceId, "voiceId", synthesizer),
      languages: SYNTHESIZER_LANGUAGES[synthesizer],
      processor: {
        provider: "sonic-sagemaker",
        model: selection.sonicModel ?? "cartesia-sonic",
        version: selection.sonicModelVersion ?? `as deployed on endpoint ${endpointName}`,
        endpoint: endpointName,
        boundary: await awsAccountBoundary(client, "sagemaker"),
      },
    });
  }
  return undefined;
};
