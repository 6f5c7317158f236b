/**
 * @voxtrail/workflow: the workflows as data: their ASL definitions, stages and functions, the key
 * layout, the event rule patterns, function sizes and environment, and the provider selection.
 */
export type { AslDefinition } from "./asl-definition";
export {
  FUNCTION_BUNDLING,
  FUNCTION_ESBUILD_OPTIONS,
  FUNCTION_ESM_BANNER,
  FUNCTION_RUNTIME,
} from "./function-bundling";
export { type BundledFunction, FUNCTION_ENTRIES } from "./function-entries";
export { CARTESIA_SECRET, FUNCTION_ENVIRONMENT } from "./function-environment";
export { FUNCTION_SIZES, type FunctionSize } from "./function-sizes";
export { type InputTransformer, transformedInput } from "./input-transformer";
export { jobIdFor, type SourceIdentity } from "./job-id";
export {
  ARTIFACT_FILES,
  type ArtifactFile,
  BATCH_INCOMING_PREFIX,
  KEY_FOLDERS,
  keys,
  RETAINED_PREFIXES,
  VOICEMAIL_INCOMING_PREFIX,
} from "./key-layout";
export { LOCAL_ITEMS_FIELD, localMapDefinition } from "./local-map-adaptation";
export { ATTEMPT_METRICS, PIPELINE_METRICS, STAGE_DURATION_METRICS } from "./pipeline-metrics";
export {
  buildPromptsDefinition,
  PROMPT_FUNCTIONS,
  PROMPT_TIMEOUT_SECONDS,
  type PromptFunction,
} from "./prompts-definition";
export { PROMPTS_INCOMING_PREFIX, promptKeys, promptsJobIdFor } from "./prompts-layout";
export { PROVIDER_ENVIRONMENT } from "./provider-environment";
export {
  type BillingUnit,
  billingUnitOf,
  type CloudProviderName,
  type EmbeddedProviderName,
  type LambdaProviderName,
  PROVIDER_REGISTRY,
  type ProviderDeclaration,
  type ProviderName,
  type ProviderSecret,
  providerDeclaration,
  providerNames,
  providersWhere,
  REASONERS,
  RECORD_LOOKUPS,
  type RegistryRole,
  type ServiceJobTranscriber,
  SYNTHESIZERS,
  TRANSCRIBERS,
} from "./provider-registry";
export {
  choice,
  DEFAULT_CARTESIA_TTS_MODEL,
  type ProviderSelection,
  type SecretSource,
  selectionFromEnvironment,
  transcriptionModeOf,
} from "./provider-selection";
export {
  isUnredactedKey,
  transcribeRedactedOutputKey,
  UNREDACTED_FOLDER,
  UNREDACTED_KEY_PATTERN,
  unredactedKey,
} from "./redaction-layout";
export {
  DEFAULT_RETRY,
  RETRY_CLASSES,
  type RetryPolicy,
  retryHorizonSeconds,
} from "./retry-policies";
export {
  type EventPattern,
  promptsRulePattern,
  voicemailBatchRulePattern,
  voicemailRulePattern,
} from "./rule-pattern";
export { SERVICE_QUOTAS, SERVICE_QUOTAS_REGION, type ServiceQuota } from "./service-quotas";
export { SONIC_LANGUAGES } from "./sonic-languages";
export { ObjectCreatedEvent, objectKeyOf, sourceIdentityOf } from "./source-event";
export {
  PROVIDER_PACKAGES,
  type ProviderPackage,
  STAGE_PROVIDERS,
  stageMismatch,
} from "./stage-providers";
export { type StageResources, stageParameterName } from "./stage-resources";
export {
  FUNCTION_TIMEOUT_MARGIN_SECONDS,
  functionOf,
  functionTimeoutSeconds,
  STAGE_FUNCTIONS,
  STAGE_TIMEOUT_SECONDS,
  type StageFunction,
  VOICEMAIL_STAGES,
  type VoicemailStage,
} from "./stages";
export { SYNTHESIZER_LANGUAGES, speaksLanguage } from "./synthesizer-languages";
export {
  TRANSCRIPTION_ENDED_INPUT,
  transcriptionEndedInput,
  transcriptionEndedPattern,
} from "./transcription-events";
export {
  MAX_TRANSCRIPTION_WAITS,
  TRANSCRIPTION_JOB_STATES,
  TRANSCRIPTION_WAIT_SECONDS,
  WAIT_FOR_TASK_TOKEN_LAMBDA,
} from "./transcription-job-states";
export {
  BATCH_FUNCTIONS,
  BATCH_RESULTS_PREFIX,
  BATCH_STATES,
  BATCH_TIMEOUT_SECONDS,
  type BatchFunction,
  buildVoicemailBatchDefinition,
} from "./voicemail-batch-definition";
export { buildVoicemailDefinition, executionTimeoutSeconds, failState } from "./voicemail-definition";
export {
  BATCH_WORKFLOW,
  type FunctionOf,
  type JobWorkflow,
  PROMPTS_WORKFLOW,
  VOICEMAIL_WORKFLOW,
  WORKFLOW_FUNCTIONS,
  type Workflow,
  type WorkflowFunction,
} from "./workflows";
