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
import { awsAccountBoundary } from "./aws/aws-account-boundary";
import type { SecretSource } from "./cartesia/cartesia-connection";
import { BedrockReasoner } from "./reasoning/bedrock";
import { S3RecordLookup } from "./records/s3-records";
import { CartesiaApiSynthesizer } from "./synthesis/cartesia-api";
import { SonicSageMakerSynthesizer } from "./synthesis/sonic-sagemaker";
import { CartesiaInkTranscriber } from "./transcription/cartesia-ink";

/** Transcribers a stage environment can choose. */
export const TRANSCRIBERS = ["local", "cartesia-ink"] as const;
/** Reasoners a stage environment can choose. */
export const REASONERS = ["local", "bedrock"] as const;
/** Synthesizers a stage environment can choose. */
export const SYNTHESIZERS = ["local", "sonic-sagemaker", "cartesia-api"] as const;
/** Record lookups a stage environment can choose. */
export const RECORD_LOOKUPS = ["local", "s3"] as const;

/** The Cartesia TTS model asked for unless configured. */
export const DEFAULT_CARTESIA_TTS_MODEL = "sonic-3";

/**
 * Which provider each stage uses, and what the cloud ones need. `local` means the embedded engine,
 * which the caller builds (it lives with the local runtime).
 */
export interface ProviderSelection {
  transcriber: (typeof TRANSCRIBERS)[number];
  reasoner: (typeof REASONERS)[number];
  synthesizer: (typeof SYNTHESIZERS)[number];
  /** `local` (the default) or `s3`. */
  records?: (typeof RECORD_LOOKUPS)[number];
  /** `s3` records: the JSON Lines object, `s3://bucket/key`. */
  recordsUri?: string;
  /** `sonic-sagemaker`: the SageMaker endpoint's name. */
  sonicEndpoint?: string;
  /** `sonic-sagemaker`: what lineage records as the model and version behind the endpoint. */
  sonicModel?: string;
  sonicModelVersion?: string;
  /** `sonic-sagemaker`, `cartesia-api`: the voice id used when a request names none. */
  voiceId?: string;
  /** `bedrock`: the model or inference profile id. */
  bedrockModelId?: string;
  /** `cartesia-ink`, `cartesia-api`: the API key, or where to read it. */
  cartesiaApiKey?: SecretSource;
  /** `cartesia-ink`, `cartesia-api`: the API's base URL (Cartesia's public API by default). */
  cartesiaBaseUrl?: string;
  /** `cartesia-api`: the TTS model id; {@link DEFAULT_CARTESIA_TTS_MODEL} by default. */
  cartesiaTtsModel?: string;
  /** `cartesia-ink`: the STT model id; `ink-whisper` by default. */
  cartesiaSttModel?: string;
}

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
 * Environment variables that choose providers (Lambda functions read them; `voxtrail run` sets the
 * same choices from its flags). Choices default to `local`.
 */
export const PROVIDER_ENVIRONMENT = {
  transcriber: "VOXTRAIL_TRANSCRIBER",
  reasoner: "VOXTRAIL_REASONER",
  synthesizer: "VOXTRAIL_SYNTHESIZER",
  records: "VOXTRAIL_RECORDS",
  recordsUri: "VOXTRAIL_RECORDS_URI",
  sonicEndpoint: "VOXTRAIL_SONIC_ENDPOINT",
  sonicModel: "VOXTRAIL_SONIC_MODEL",
  sonicModelVersion: "VOXTRAIL_SONIC_MODEL_VERSION",
  voiceId: "VOXTRAIL_VOICE_ID",
  bedrockModelId: "VOXTRAIL_BEDROCK_MODEL_ID",
  cartesiaTtsModel: "VOXTRAIL_CARTESIA_TTS_MODEL",
  cartesiaSttModel: "VOXTRAIL_CARTESIA_STT_MODEL",
  cartesiaBaseUrl: "CARTESIA_BASE_URL",
  cartesiaApiKey: "CARTESIA_API_KEY",
} as const;

/**
 * Reads a {@link ProviderSelection} from environment variables ({@link PROVIDER_ENVIRONMENT}).
 * `CARTESIA_API_KEY` is read when first needed, not now, so a function can also set it late (e.g.
 * from an SST Secret); it is checked to be present only when a Cartesia provider is chosen.
 * An unknown provider name is `InvalidInput` listing the valid ones.
 *
 * @example
 * // VOXTRAIL_REASONER=bedrock VOXTRAIL_BEDROCK_MODEL_ID=anthropic.claude-3-5-haiku-20241022-v1:0
 * const selection = selectionFromEnvironment(process.env);
 * const { reasoner } = await cloudProviders(selection);
 */
export function selectionFromEnvironment(env: NodeJS.ProcessEnv = process.env): ProviderSelection {
  const read = (name: keyof typeof PROVIDER_ENVIRONMENT): string | undefined => {
    const value = env[PROVIDER_ENVIRONMENT[name]]?.trim();
    return value === "" ? undefined : value;
  };
  const selection: ProviderSelection = {
    transcriber: choice(TRANSCRIBERS, read("transcriber"), PROVIDER_ENVIRONMENT.transcriber),
    reasoner: choice(REASONERS, read("reasoner"), PROVIDER_ENVIRONMENT.reasoner),
    synthesizer: choice(SYNTHESIZERS, read("synthesizer"), PROVIDER_ENVIRONMENT.synthesizer),
  };
  if (read("records") !== undefined) {
    selection.records = choice(RECORD_LOOKUPS, read("records"), PROVIDER_ENVIRONMENT.records);
  }
  for (const name of [
    "recordsUri",
    "sonicEndpoint",
    "sonicModel",
    "sonicModelVersion",
    "voiceId",
    "bedrockModelId",
    "cartesiaTtsModel",
    "cartesiaSttModel",
    "cartesiaBaseUrl",
  ] as const) {
    const value = read(name);
    if (value !== undefined) selection[name] = value;
  }
  if (read("cartesiaApiKey") !== undefined) {
    selection.cartesiaApiKey = async () => env[PROVIDER_ENVIRONMENT.cartesiaApiKey]?.trim() ?? "";
  }
  return selection;
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

function choice<const T extends readonly string[]>(
  valid: T,
  value: string | undefined,
  setting: string,
): T[number] {
  if (value === undefined) return "local";
  if ((valid as readonly string[]).includes(value)) return value as T[number];
  throw new InvalidInput(
    `${setting} must be one of ${valid.join(", ")}; got ${JSON.stringify(value.slice(0, 40))}`,
  );
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
