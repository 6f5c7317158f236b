export * from "./function-environment";
export * from "./function-sizes";
export * from "./job-id";
export * from "./key-layout";
export * from "./local-map-adaptation";
export * from "./pipeline-metrics";
export * from "./prompts-definition";
export * from "./prompts-layout";
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
export * from "./provider-selection";
export * from "./rule-pattern";
export { SONIC_LANGUAGES } from "./sonic-languages";
export * from "./source-event";
export * from "./stage-resources";
export * from "./stages";
export * from "./synthesizer-languages";
export * from "./transcription-job-states";
export * from "./voicemail-batch-definition";
export * from "./voicemail-definition";
export * from "./workflows";
