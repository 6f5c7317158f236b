/**
 * @voxtrail/providers: the processors the stages call (transcribers, reasoners, record lookups,
 * synthesizers), chosen per role by the provider selection, and the SDK calls they make.
 */

export type { ReferenceLengths } from "@voxtrail/core";
export { collectSdkCalls } from "./aws/sdk-calls";
export { buildProviders, type EmbeddedProviders, type RoleBuilders } from "./choice/build-providers";
export { CLOUD_BUILDERS } from "./choice/cloud-builders";
export { embeddedReasoner } from "./choice/embedded-reasoner";
export type { ProviderClients, ProviderRole, Providers, RoleBuilder } from "./choice/provider-roles";
export { ROLE_SETTING } from "./choice/provider-roles";
export { cloudReasoner } from "./choice/reasoner-choice";
export { cloudRecords } from "./choice/records-choice";
export { cloudSynthesizer } from "./choice/synthesizer-choice";
export { cloudTranscriber } from "./choice/transcriber-choice";
export { cloudTranscriptionService } from "./choice/transcription-service-choice";
export { toReasoningError } from "./reasoning/bedrock-errors";
export {
  CALL_REVIEW_THRESHOLD,
  checkFacts,
  type FactCheck,
  type FactCheckOptions,
  REVIEW_THRESHOLD,
} from "./reasoning/fact-confidence";
export { LocalReasoner } from "./reasoning/local-reasoner";
export { JsonlRecordLookup } from "./records/jsonl-record-lookup";
export { SonicSageMakerSynthesizer, SonicSynthesisStream } from "./synthesis/sonic-sagemaker";
export { TimedSynthesisStream } from "./synthesis/timed-synthesis-stream";
export { AmazonTranscribe, DEFAULT_TRANSCRIBE_JOB_PREFIX } from "./transcription/amazon-transcribe";
export { EN_US_MODEL, SPHINXTRAIN_DIR } from "./transcription/call-adaptation";
export {
  FEMALE_VOICE_ADAPTATION,
  PocketsphinxTranscriber,
  TELEPHONY_ADAPTATION,
  VOICEMAIL_LANGUAGE_MODEL,
} from "./transcription/pocketsphinx";
export { SimulatedTranscriber } from "./transcription/simulated-transcriber";
export { writeMixtureWeights } from "./transcription/sphinx-mixture-weights";
export { transcriptOfTranscribeOutput } from "./transcription/transcribe-output";
export { countWordErrors } from "./transcription/word-error-rate";
