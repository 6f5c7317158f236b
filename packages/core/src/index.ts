/**
 * @voxtrail/core: the pipeline's shared vocabulary: its records and reports (activity records, job
 * reports, lineage summaries, erasure records, prompt reports), the named errors, boundaries and the
 * boundary policy, the object store and provider interfaces, and the event clock.
 */
import "./schema-messages";

export {
  ACTIVITY_RECORD_VERSION,
  ActivityRecord,
  ArtifactRedaction,
  POINTERS_ONLY,
  RecordedError,
  SdkCall,
  ServiceJob,
} from "./activity-record";
export { timingSamples } from "./activity-samples";
export { ArtifactKind, ArtifactRef, artifactRefOf, ManifestRef, SOURCE_KINDS, SourceRef } from "./artifact";
export { AudioEncoding, AudioFormat } from "./audio-format";
export { Boundary, LOCAL_BOUNDARY, Processor } from "./boundary";
export {
  BoundaryPolicy,
  BoundaryPolicyInvalid,
  decideBoundaries,
  describeBoundary,
  describeRefusal,
  type IntendedFlow,
  PolicyDecision,
} from "./boundary-policy";
export { builtOnce } from "./built-once";
export { ErasedArtifact, ErasureRecord } from "./erasure-record";
export {
  AttemptInterrupted,
  BoundaryViolation,
  EventPublishFailed,
  InvalidAudio,
  InvalidInput,
  InvalidKey,
  InvalidPromptRow,
  ObjectChanged,
  ObjectNotFound,
  PromptAudioImplausible,
  PromptFormatUnknown,
  PromptIdDuplicate,
  PromptIdInvalid,
  PromptLanguageUnsupported,
  PromptManifestEmpty,
  PromptManifestUnreadable,
  PromptRowMalformed,
  PromptTextControlCharacters,
  PromptTextEmpty,
  PromptTextInvalidUtf8,
  PromptTextTooLong,
  ReasoningFailed,
  ReasoningInvalidOutput,
  ReasoningThrottled,
  StageTimedOut,
  StoreAccessDenied,
  SynthesisFailed,
  SynthesisRejected,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
  THROTTLED_ERROR_NAMES,
  TRANSIENT_ERROR_NAMES,
  TranscriptionFailed,
  TranscriptionJobFailed,
  TranscriptionRefused,
  TranscriptionThrottled,
  TranscriptionTimedOut,
  VoxtrailError,
} from "./errors";
export { DuplicateDelivery, type ExecutionLiveness, JobClaim } from "./job-claim";
export { JobOutcome, JobReport, ReportSource } from "./job-report";
export { lambdaErrorCause } from "./lambda-error-cause";
export {
  CallLanguage,
  CallLanguageUnknown,
  CallLanguageUnsupported,
  callLanguage,
  DEFAULT_CALL_LANGUAGES,
  languageFromKey,
  primaryLanguage,
  quoteLanguage,
  ReasonerLanguageUnsupported,
  SynthesizerLanguageUnsupported,
  TranscriberLanguageUnsupported,
} from "./language";
export { LineageSummary } from "./lineage-summary";
export { mapLimit } from "./map-limit";
export {
  isLocalFileBody,
  type LocalFileBody,
  type ObjectBody,
  type ObjectStore,
  type ObjectVersion,
  type PutOptions,
  type StoredObject,
  type StoredVersion,
} from "./object-store";
export { EVENT_SOURCE, type EventPublisher, OUTCOME_DETAIL_TYPES, OutcomeDetail } from "./outcome-event";
export { processAlive } from "./process-alive";
export {
  BadPromptRow,
  BadPromptRows,
  DEFAULT_PROMPT_FORMAT,
  PROMPT_FORMATS,
  PromptReportEntry,
  PromptResult,
  PromptRow,
  PromptsReport,
} from "./prompt-report";
export type {
  Reasoner,
  RecordLookup,
  ReferenceLengths,
  SynthesisRequest,
  SynthesisStream,
  Synthesizer,
  Transcriber,
  TranscriptionJobRequest,
  TranscriptionJobStatus,
  TranscriptionService,
  WorkflowCallback,
} from "./providers";
export { isSchemaMismatch, readJson } from "./read-json";
export {
  REDACTION_ENVIRONMENT,
  RedactionOutput,
  RedactionSettings,
  redactionFromEnvironment,
} from "./redaction/redaction-settings";
export {
  findRedactions,
  mergeTerms,
  RedactedKind,
  RedactionCount,
  type RedactionSpan,
  type RedactionStyle,
  type RedactionTerms,
  redactionTermsFromRecords,
  redactText,
  redactTranscript,
  redactVoicemailRecord,
  sumCounts,
  termsOfRecord,
} from "./redaction/redactor";
export { findNumberRuns, spokenDigits, spokenForms, tokenizeWithSpans } from "./redaction/spoken-numbers";
export { systemErrorMeaning } from "./system-errors";
export { EventClock, round, Timing } from "./timing";
export { Gauge, SampleConditions, Stall, StreamDelivery, TimingSample } from "./timing-sample";
export { Transcript, TranscriptWord } from "./transcript";
export { unlessMissing } from "./unless-missing";
export {
  BusinessRecord,
  CheckedFact,
  Entities,
  FactReview,
  Intent,
  RecordMatch,
  ReplyFact,
  ReplyProvenance,
  VoicemailRecord,
} from "./voicemail-record";
