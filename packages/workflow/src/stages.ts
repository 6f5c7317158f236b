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

/**
 * Seconds each stage's Task state may run before Step Functions fails it with `States.Timeout`
 * (the failure recorder's Task states run under Finalize's). The stage's Lambda function times out
 * {@link FUNCTION_TIMEOUT_MARGIN_SECONDS} sooner ({@link functionTimeoutSeconds}).
 */
export const STAGE_TIMEOUT_SECONDS: Record<VoicemailStage, number> = {
  Ingest: 60,
  Transcribe: 300,
  Reason: 60,
  Synthesize: 300,
  Finalize: 30,
};

/**
 * How much sooner a Lambda function times out than the Task state that invokes it. Step Functions
 * does not stop a function when its Task times out: a state timeout that fired first would start
 * a retry (or the failure recorder) while the first attempt still runs and writes. With the
 * function's timeout this much earlier, its own deadline comes first: the attempt records itself
 * as failed with `StageTimedOut` shortly before it (middy's early timeout, set by the stage kernel,
 * packages/functions/src/kernel/stage-handler.ts) and ends; the Task's timeout is only a backstop
 * (for a function that never got to run, or a cold start longer than the margin).
 */
export const FUNCTION_TIMEOUT_MARGIN_SECONDS = 10;

/**
 * The Lambda timeout of the function a Task state with `taskTimeoutSeconds` invokes:
 * {@link FUNCTION_TIMEOUT_MARGIN_SECONDS} less. The one place function timeouts come from
 * (function-sizes.ts for the stacks, the local runtime for its handlers), so they cannot drift
 * from the Task timeouts.
 *
 * @example
 * functionTimeoutSeconds(STAGE_TIMEOUT_SECONDS.Transcribe); // 290
 */
export function functionTimeoutSeconds(taskTimeoutSeconds: number): number {
  const seconds = taskTimeoutSeconds - FUNCTION_TIMEOUT_MARGIN_SECONDS;
  if (!(seconds >= 1)) {
    throw new RangeError(
      `a Task timeout of ${taskTimeoutSeconds} s leaves its function no time: it must exceed ${FUNCTION_TIMEOUT_MARGIN_SECONDS} s`,
    );
  }
  return seconds;
}
