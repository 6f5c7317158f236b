import { InvalidInput } from "@voxtrail/core";
import { PROVIDER_ENVIRONMENT } from "./provider-environment";
import {
  providerDeclaration,
  REASONERS,
  RECORD_LOOKUPS,
  SYNTHESIZERS,
  TRANSCRIBERS,
} from "./provider-registry";
import type { TranscriptionMode } from "./voicemail-definition";

/**
 * Which provider each stage uses, and the environment variables that say so: the contract between
 * the stacks (which write the variables from a stage's configuration), Lambda (which reads them)
 * and `voxtrail run` (which sets the same choices from its flags). Building the providers is
 * the providers package's (`buildProviders`); what each provider is, `PROVIDER_REGISTRY`'s.
 */

/** An API key, or where to read it when first needed (an `sst.Secret`, an environment variable). */
export type SecretSource = string | (() => Promise<string>);

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
  /**
   * `amazon-transcribe`: what every transcription job name starts with (`<app>-<stage>-` as
   * deployed), so the stage's roles can be granted its jobs and no other stage's.
   */
  transcribeJobPrefix?: string;
  /**
   * `amazon-transcribe`: the role Transcribe assumes to read queued media and write their output;
   * when set, jobs start with job queueing on (`<app>-<stage>-transcribe-data-access` as deployed).
   */
  transcribeDataAccessRoleArn?: string;
}

/**
 * Reads a {@link ProviderSelection} from environment variables ({@link PROVIDER_ENVIRONMENT}).
 * `CARTESIA_API_KEY` is read when first needed, not now, so a function can also set it late (e.g.
 * from an SST Secret); it is checked to be present only when a Cartesia provider is chosen.
 * An unknown provider name is `InvalidInput` listing the valid ones.
 *
 * @example
 * // VOXTRAIL_REASONER=bedrock VOXTRAIL_BEDROCK_MODEL_ID=anthropic.claude-3-5-haiku-20241022-v1:0
 * const selection = selectionFromEnvironment(process.env);
 * const { reasoner } = await buildProviders(selection, { reasoner: cloudReasoner });
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
    "transcribeJobPrefix",
    "transcribeDataAccessRoleArn",
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
 * How a selection's transcriber runs in the voicemail workflow: one declared a `serviceJob`
 * (Amazon Transcribe) as a job the workflow starts, waits for and reads (`service-job`); every
 * other transcriber in the Transcribe function (`in-function`).
 *
 * @example
 * VOICEMAIL_WORKFLOW.definition(functionArns, transcriptionModeOf(selection));
 */
export function transcriptionModeOf(selection: Pick<ProviderSelection, "transcriber">): TranscriptionMode {
  return providerDeclaration("transcriber", selection.transcriber)?.serviceJob
    ? "service-job"
    : "in-function";
}

/** `value` if it is one of `valid` (`local` when unset); `InvalidInput` listing them otherwise. */
export function choice<const T extends readonly string[]>(
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
