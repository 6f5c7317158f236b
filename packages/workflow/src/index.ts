export { type BundledFunction, FUNCTION_ENTRIES } from "./function-entries";
export * from "./function-environment";
export * from "./function-sizes";
export * from "./job-id";
export * from "./key-layout";
export * from "./local-map-adaptation";
export * from "./pipeline-metrics";
export * from "./prompts-definition";
export * from "./prompts-layout";
export * from "./provider-selection";
export * from "./rule-pattern";
export * from "./source-event";
export {
  PROVIDER_PACKAGES,
  type ProviderPackage,
  STAGE_PROVIDERS,
  stageMismatch,
} from "./stage-providers";
export * from "./stage-resources";
export * from "./stages";
export * from "./synthesizer-languages";
export * from "./transcription-job-states";
export * from "./voicemail-batch-definition";
export * from "./voicemail-definition";
export * from "./workflows";
