export { collectSdkCalls, observeSdkCalls, type SdkClient } from "./aws/sdk-calls";
export { CARTESIA_API_URL, type CartesiaConnectionOptions } from "./cartesia/cartesia-connection";
export { buildProviders, type EmbeddedProviders, type RoleBuilders } from "./choice/build-providers";
export { CLOUD_BUILDERS } from "./choice/cloud-builders";
export type { ProviderClients, ProviderRole, Providers, RoleBuilder } from "./choice/provider-roles";
export { ROLE_SETTING } from "./choice/provider-roles";
export { cloudReasoner } from "./choice/reasoner-choice";
export { cloudRecords } from "./choice/records-choice";
export { cloudSynthesizer } from "./choice/synthesizer-choice";
export { cloudTranscriber } from "./choice/transcriber-choice";
export { cloudTranscriptionService } from "./choice/transcription-service-choice";
export { BedrockReasoner, type BedrockReasonerOptions } from "./reasoning/bedrock";
export { toReasoningError } from "./reasoning/bedrock-errors";
export { extractEntities } from "./reasoning/entities";
export { classifyIntent } from "./reasoning/intent";
export { LocalReasoner, type LocalReasonerOptions } from "./reasoning/local-reasoner";
export { JsonlRecordLookup, type MatchedOn } from "./records/jsonl-record-lookup";
export { S3RecordLookup, UNREAD_RECORDS_VERSION } from "./records/s3-records";
export type { S3ObjectLocation } from "./records/s3-text-object";
export {
  CARTESIA_SAMPLE_RATES,
  CartesiaApiSynthesizer,
  type CartesiaApiSynthesizerOptions,
  CartesiaSynthesisStream,
} from "./synthesis/cartesia-api";
export { type FailureContext, toSynthesisError } from "./synthesis/sagemaker-errors";
export type { WordTiming } from "./synthesis/sonic-events";
export {
  type SonicSageMakerOptions,
  SonicSageMakerSynthesizer,
  SonicSynthesisStream,
} from "./synthesis/sonic-sagemaker";
export { DEFAULT_STALL_THRESHOLD_MS, TimedSynthesisStream } from "./synthesis/timed-synthesis-stream";
export {
  AmazonTranscribe,
  type AmazonTranscribeOptions,
  DEFAULT_TRANSCRIBE_JOB_PREFIX,
} from "./transcription/amazon-transcribe";
export { type CartesiaInkOptions, CartesiaInkTranscriber, INK_WHISPER } from "./transcription/cartesia-ink";
export type { ReferenceLengths } from "./transcription/number-length";
export {
  FEMALE_VOICE_ADAPTATION,
  type PocketsphinxOptions,
  PocketsphinxTranscriber,
  TELEPHONY_ADAPTATION,
  VOICEMAIL_LANGUAGE_MODEL,
} from "./transcription/pocketsphinx";
export { SIMULATED_TRANSCRIPT_TEXT, SimulatedTranscriber } from "./transcription/simulated-transcriber";
export { transcribeError } from "./transcription/transcribe-errors";
export { transcriptOfTranscribeOutput } from "./transcription/transcribe-output";
export {
  countWordErrors,
  normalizeWords,
  type WordErrors,
  wordErrorRate,
} from "./transcription/word-error-rate";
