import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { S3Client } from "@aws-sdk/client-s3";
import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import {
  InvalidInput,
  type Reasoner,
  type RecordLookup,
  type Synthesizer,
  type Transcriber,
} from "@voxtrail/core";
import {
  choice,
  DEFAULT_CARTESIA_TTS_MODEL,
  PROVIDER_ENVIRONMENT,
  type ProviderSelection,
  REASONERS,
  RECORD_LOOKUPS,
  SYNTHESIZERS,
  TRANSCRIBERS,
} from "@voxtrail/workflow";
import { awsAccountBoundary } from "./aws/aws-account-boundary";
import { BedrockReasoner } from "./reasoning/bedrock";
import { S3RecordLookup } from "./records/s3-records";
import { CartesiaApiSynthesizer } from "./synthesis/cartesia-api";
import { SonicSageMakerSynthesizer } from "./synthesis/sonic-sagemaker";
import { CartesiaInkTranscriber } from "./transcription/cartesia-ink";

/** The cloud providers a selection asked for; `undefined` where it chose `local`. */
export interface SelectedProviders {
  transcriber: Transcriber | undefined;
  reasoner: Reasoner | undefined;
  synthesizer: Synthesizer | undefined;
  records: RecordLookup | undefined;
}

/** SDK clients to use instead of ones built from the standard AWS configuration (tests, custom endpoints). */
export interface ProviderClients {
  sagemaker?: SageMakerRuntimeClient;
  bedrock?: BedrockRuntimeClient;
  s3?: S3Client;
}

/**
 * Builds the cloud providers a selection asks for, each declaring its processor and boundary
 * (regions from the clients' configuration). AWS clients not given are built from the standard
 * AWS configuration (`AWS_REGION`, `AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`,
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, `AWS_ENDPOINT_URL_S3`, profiles). `s3` records are not read
 * now but on their first use, so a function that never looks a record up needs no access to
 * them. A missing setting is `InvalidInput` naming it.
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
export async function cloudProviders(
  selection: ProviderSelection,
  clients: ProviderClients = {},
): Promise<SelectedProviders> {
  const transcriber = choice(TRANSCRIBERS, selection.transcriber, "transcriber");
  const reasoner = choice(REASONERS, selection.reasoner, "reasoner");
  const synthesizer = choice(SYNTHESIZERS, selection.synthesizer, "synthesizer");
  const records = choice(RECORD_LOOKUPS, selection.records, "records");
  return {
    transcriber:
      transcriber === "cartesia-ink"
        ? new CartesiaInkTranscriber({
            apiKey: required(selection.cartesiaApiKey, "cartesiaApiKey", transcriber),
            ...optional("baseURL", selection.cartesiaBaseUrl),
            ...optional("model", selection.cartesiaSttModel),
          })
        : undefined,
    reasoner:
      reasoner === "bedrock"
        ? await BedrockReasoner.create({
            client: clients.bedrock ?? new BedrockRuntimeClient({}),
            modelId: required(selection.bedrockModelId, "bedrockModelId", reasoner),
          })
        : undefined,
    synthesizer: await buildSynthesizer(synthesizer, selection, clients),
    records:
      records === "s3"
        ? await S3RecordLookup.create({
            client: clients.s3 ?? new S3Client({}),
            ...s3Location(required(selection.recordsUri, "recordsUri", "s3 records")),
          })
        : undefined,
  };
}

function s3Location(uri: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (match === null) throw new InvalidInput(`recordsUri must look like s3://bucket/key`);
  return { bucket: match[1] as string, key: match[2] as string };
}

async function buildSynthesizer(
  synthesizer: ProviderSelection["synthesizer"],
  selection: ProviderSelection,
  clients: ProviderClients,
): Promise<Synthesizer | undefined> {
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
}

function required<T>(value: T | undefined, setting: keyof typeof PROVIDER_ENVIRONMENT, provider: string): T {
  if (value === undefined || value === "") {
    throw new InvalidInput(
      `provider ${provider} needs ${setting} (environment variable ${PROVIDER_ENVIRONMENT[setting]})`,
    );
  }
  return value;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
