/**
 * @voxtrail/local: the embedded engines and runtimes: the local voicemail and prompts runtimes,
 * the local state machine, the event sources, flite, and the local Sonic and Transcribe endpoints.
 */
export { BUNDLED_RECORDS_FILE, BUNDLED_VOICEMAILS_DIR } from "./bundled-fixtures";
export { EspeakEngine, EspeakFailed, type EspeakVoice } from "./espeak/espeak-engine";
export {
  LOCAL_SPEECH_ENGINES,
  LOCAL_SPEECH_LANGUAGES,
  SPANISH_ESPEAK_VOICE,
  spanishSpeech,
} from "./espeak/spanish-speech";
export { matchesPattern } from "./events/event-pattern";
export { objectCreatedEvent, s3EventKey } from "./events/object-created-event";
export { type SqsDelivery, SqsEventSource } from "./events/sqs-event-source";
export { FLITE_VERSION, FliteEngine, type FliteVoice } from "./flite/flite-engine";
export { FliteProcess } from "./flite/flite-process";
export { collectInputFiles, type InputFile } from "./input-files";
export type { JobResult } from "./job-result";
export {
  ALL_LOCAL,
  DEFAULT_REPLY_FORMAT,
  localDependencies,
  localSonicSynthesizer,
} from "./local-dependencies";
export {
  LOCAL_BATCH_FUNCTION_ARNS,
  LOCAL_FUNCTION_ARNS,
  LOCAL_PROMPT_FUNCTION_ARNS,
} from "./local-functions";
export { contentTypeOf, type JobProgress, LocalRuntime } from "./local-runtime";
export type { PromptsProgress } from "./prompts-progress";
export { manifestContentTypeOf, type PromptsJobResult, PromptsRuntime } from "./prompts-runtime";
export { replyFormatNamed, selectionFromChoices } from "./run-choices";
export type { SonicEndpointFaults } from "./sonic-endpoint/faults";
export { splitSentences } from "./sonic-endpoint/sentences";
export {
  type GenerationTime,
  type SonicCapacity,
  type SonicCapacityUse,
  type SonicEndpoint,
  type SpeechEngine,
  type StartedSonicEndpoint,
  startSonicEndpoint,
} from "./sonic-endpoint/server";
export {
  type ExecutionEvent,
  type ExecutionResult,
  invokeLikeLambda,
  LocalStateMachine,
  type StateTransition,
} from "./state-machine/local-state-machine";
export { RunningExecutions } from "./state-machine/running-executions";
export { TaskTokens } from "./state-machine/task-tokens";
export type { TranscribeEndpointFaults } from "./transcribe-endpoint/faults";
export type { JobLanguageSettings } from "./transcribe-endpoint/job-languages";
export { answer, readJsonRequest, ServiceError } from "./transcribe-endpoint/json-protocol";
export {
  AWS_TRANSCRIBE_QUOTAS,
  type JobRunTime,
  type QuotaUse,
  startTranscribeEndpoint,
  type TranscribeEndpoint,
  type TranscribeJobStateChangeEvent,
  type TranscribeQuotas,
} from "./transcribe-endpoint/server";
export { SuppliedTranscripts } from "./transcribe-endpoint/supplied-transcripts";
