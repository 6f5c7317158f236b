import type { PROVIDER_ENVIRONMENT } from "./provider-environment";
import { SONIC_LANGUAGES } from "./sonic-languages";

/** A role a provider fills; a stage environment chooses one provider per role. */
export type RegistryRole = "transcriber" | "reasoner" | "synthesizer" | "records";

/** A secret a provider calls with: the stacks link it to the functions that build the provider. */
export type ProviderSecret = "cartesia";

/**
 * What the cost report counts for a provider's use (`voxtrail report --cost`): seconds of audio
 * sent to Cartesia's STT, characters sent to Cartesia's TTS, seconds a Sonic endpoint streamed,
 * seconds of audio Amazon Transcribe bills.
 */
export type BillingUnit =
  | "cartesia-stt-seconds"
  | "cartesia-tts-characters"
  | "sonic-stream-seconds"
  | "transcribe-audio-seconds";

/** Everything the system knows about one provider, besides how to build it. */
export interface ProviderDeclaration {
  /** What it is, for `voxtrail run --help` (the first choice of a role is its default). */
  help: string;
  /**
   * Who builds it: `cloud`, a builder in `@voxtrail/providers` from the selection (keyed by this
   * name, so a missing builder is a type error); `embedded`, the runtime's own engine.
   */
  builtBy: "cloud" | "embedded";
  /** Whether a deployed stage's Lambda functions can run it (the embedded engines mostly cannot). */
  lambda: boolean;
  /** Transcription as a job on a managed service the workflow starts, waits for and reads. */
  serviceJob?: true;
  /** Settings it cannot do without (the stage configuration checks those it holds). */
  needs?: readonly (keyof typeof PROVIDER_ENVIRONMENT)[];
  /** The secret it calls with. */
  secret?: ProviderSecret;
  /** What the cost report counts for it. */
  billing?: BillingUnit;
  /** The processor names its activity records carry, when not its own name. */
  recordedAs?: readonly string[];
  /** Synthesizers: the languages it speaks (ISO 639-1). */
  languages?: readonly string[];
}

/**
 * Every provider, declared once per role, the first of each role its default (`local`). The
 * stacks, the CLI, the local runtime, the cost report and lineage read these facts; the cloud
 * builders (`@voxtrail/providers`, one module per role so a function bundles only its SDKs) and
 * the embedded engines are keyed by the same names. Adding a provider is one entry here, its
 * implementation, and its builder.
 *
 * @example
 * PROVIDER_REGISTRY.transcriber["cartesia-ink"].secret; // "cartesia"
 */
export const PROVIDER_REGISTRY = {
  transcriber: {
    local: { help: "pocketsphinx, the default", builtBy: "embedded", lambda: false },
    "cartesia-ink": {
      help: "needs CARTESIA_API_KEY",
      builtBy: "cloud",
      lambda: true,
      needs: ["cartesiaApiKey"],
      secret: "cartesia",
      billing: "cartesia-stt-seconds",
    },
    "amazon-transcribe": {
      help:
        "a Transcribe batch job the workflow starts, waits for and reads; locally served by a " +
        "stand-in that speaks Transcribe's API over pocketsphinx",
      builtBy: "cloud",
      lambda: true,
      serviceJob: true,
      billing: "transcribe-audio-seconds",
    },
    simulated: {
      help:
        "hears no audio: one fixed transcript, recorded as simulated; for fast tests and load " +
        "runs of the rest of the pipeline",
      builtBy: "embedded",
      lambda: false,
    },
  },
  reasoner: {
    local: { help: "rule-based, the default", builtBy: "embedded", lambda: true },
    bedrock: {
      help: "Converse; the model from VOXTRAIL_BEDROCK_MODEL_ID",
      builtBy: "cloud",
      lambda: true,
      needs: ["bedrockModelId"],
    },
  },
  synthesizer: {
    local: {
      help: "flite (English) and espeak-ng (Spanish) behind a local Sonic-compatible endpoint, the default",
      builtBy: "embedded",
      lambda: false,
      billing: "sonic-stream-seconds",
      recordedAs: ["local-sonic-endpoint"],
      languages: ["en", "es"],
    },
    "sonic-sagemaker": {
      help:
        "InvokeEndpointWithResponseStream on --sonic-endpoint; region, credentials and " +
        "AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME from the standard AWS configuration",
      builtBy: "cloud",
      lambda: true,
      needs: ["sonicEndpoint", "voiceId"],
      billing: "sonic-stream-seconds",
      languages: SONIC_LANGUAGES,
    },
    "cartesia-api": {
      help: "needs CARTESIA_API_KEY",
      builtBy: "cloud",
      lambda: true,
      needs: ["cartesiaApiKey", "voiceId"],
      secret: "cartesia",
      billing: "cartesia-tts-characters",
      languages: SONIC_LANGUAGES,
    },
  },
  records: {
    local: { help: "a JSON Lines file, the default", builtBy: "embedded", lambda: false },
    s3: { help: "a JSON Lines object in S3", builtBy: "cloud", lambda: true, needs: ["recordsUri"] },
  },
} as const satisfies { [R in RegistryRole]: Record<string, ProviderDeclaration> };

type Declared<R extends RegistryRole> = (typeof PROVIDER_REGISTRY)[R];

/** The providers declared for a role. */
export type ProviderName<R extends RegistryRole> = keyof Declared<R> & string;

/** The providers of a role whose declaration matches `D`. */
type NamesWhere<R extends RegistryRole, D> = {
  [N in ProviderName<R>]: Declared<R>[N] extends D ? N : never;
}[ProviderName<R>];

/** The providers of a role that `@voxtrail/providers` builds in-process: each needs a builder there. */
export type CloudProviderName<R extends RegistryRole> = NamesWhere<
  R,
  { builtBy: "cloud"; serviceJob?: undefined }
>;

/** The transcribers that run as a service job: each needs a transcription service builder. */
export type ServiceJobTranscriber = NamesWhere<"transcriber", { serviceJob: true }>;

/** The providers of a role the runtime builds itself (each runtime keys its engines by these). */
export type EmbeddedProviderName<R extends RegistryRole> = NamesWhere<R, { builtBy: "embedded" }>;

/** The providers of a role a deployed stage can choose. */
export type LambdaProviderName<R extends RegistryRole> = NamesWhere<R, { lambda: true }>;

/**
 * The names declared for `role`, in declaration order (the default first).
 *
 * @example
 * providerNames("reasoner"); // ["local", "bedrock"]
 */
export function providerNames<R extends RegistryRole>(role: R): readonly ProviderName<R>[] {
  return Object.keys(PROVIDER_REGISTRY[role]) as ProviderName<R>[];
}

/**
 * The declaration of `name` in `role`, or `undefined` when none is declared.
 *
 * @example
 * providerDeclaration("synthesizer", "cartesia-api")?.secret; // "cartesia"
 */
export function providerDeclaration(role: RegistryRole, name: string): ProviderDeclaration | undefined {
  const declared: Record<string, ProviderDeclaration> = PROVIDER_REGISTRY[role];
  return Object.hasOwn(declared, name) ? declared[name] : undefined;
}

/**
 * The names of `role` whose declarations satisfy `test`, in declaration order.
 *
 * @example
 * providersWhere("transcriber", (declared) => declared.lambda); // ["cartesia-ink", "amazon-transcribe"]
 */
export function providersWhere<R extends RegistryRole>(
  role: R,
  test: (declared: ProviderDeclaration) => boolean,
): ProviderName<R>[] {
  return providerNames(role).filter((name) => test(PROVIDER_REGISTRY[role][name] as ProviderDeclaration));
}

/**
 * The billing unit of the provider an activity record names as its processor (by its name or a
 * name it is `recordedAs`), or `undefined` when it bills nothing the cost report counts.
 *
 * @example
 * billingUnitOf("synthesizer", "local-sonic-endpoint"); // "sonic-stream-seconds"
 */
export function billingUnitOf(role: RegistryRole, recordedProvider: string): BillingUnit | undefined {
  const declared: Record<string, ProviderDeclaration> = PROVIDER_REGISTRY[role];
  const match = Object.entries(declared).find(
    ([name, declaration]) => name === recordedProvider || declaration.recordedAs?.includes(recordedProvider),
  );
  return match?.[1].billing;
}

/** Transcribers a stage environment can choose. */
export const TRANSCRIBERS = providerNames("transcriber");
/** Reasoners a stage environment can choose. */
export const REASONERS = providerNames("reasoner");
/** Synthesizers a stage environment can choose. */
export const SYNTHESIZERS = providerNames("synthesizer");
/** Record lookups a stage environment can choose. */
export const RECORD_LOOKUPS = providerNames("records");
