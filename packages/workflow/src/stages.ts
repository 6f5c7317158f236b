/** The voicemail workflow's stages, in order: each is one Task state backed by one Lambda handler. */
export const VOICEMAIL_STAGES = ["Ingest", "Transcribe", "Reason", "Synthesize", "Finalize"] as const;
export type VoicemailStage = (typeof VOICEMAIL_STAGES)[number];

/** The Lambda functions the workflow calls: one per stage, plus the failure recorder. */
export const STAGE_FUNCTIONS = [
  "ingest",
  "transcribe",
  "reason",
  "synthesize",
  "finalize",
  "recordFailure",
] as const;
export type StageFunction = (typeof STAGE_FUNCTIONS)[number];

/** The function that runs a stage. */
export function functionOf(stage: VoicemailStage): StageFunction {
  return stage.toLowerCase() as Lowercase<VoicemailStage>;
}

/**
 * Where each stage's result goes in the state (pointers only). Ingest and Finalize replace the
 * state: they leave ResultPath out, which means "$" in ASL (aws-local-stepfunctions 3 mishandles
 * an explicit "$", writing a key named "$").
 */
export const RESULT_PATHS: Record<VoicemailStage, string | undefined> = {
  Ingest: undefined,
  Transcribe: "$.transcribe",
  Reason: "$.reason",
  Synthesize: "$.synthesize",
  Finalize: undefined,
};

/** Seconds each stage may run before Step Functions fails it with `States.Timeout`. */
export const STAGE_TIMEOUT_SECONDS: Record<VoicemailStage, number> = {
  Ingest: 60,
  Transcribe: 300,
  Reason: 60,
  Synthesize: 300,
  Finalize: 30,
};
