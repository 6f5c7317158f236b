import { PROMPT_TIMEOUT_SECONDS, type PromptFunction } from "./prompts-definition";
import { functionTimeoutSeconds, STAGE_TIMEOUT_SECONDS, type StageFunction } from "./stages";
import { BATCH_TIMEOUT_SECONDS, type BatchFunction } from "./voicemail-batch-definition";

/** A function's memory and timeout, in the form `sst.aws.Function` takes them. */
export interface FunctionSize {
  memory: `${number} MB`;
  timeout: `${number} seconds`;
}

/** `memory`, and the timeout of a function whose Task state times out after `taskTimeoutSeconds`. */
function sized(memory: FunctionSize["memory"], taskTimeoutSeconds: number): FunctionSize {
  return { memory, timeout: `${functionTimeoutSeconds(taskTimeoutSeconds)} seconds` };
}

/**
 * Memory (MB) and timeout (s) of each stage function as deployed: synthesis and transcription
 * move audio. Each timeout is its Task state's (STAGE_TIMEOUT_SECONDS; the failure recorder's
 * Task states run under Finalize's) less FUNCTION_TIMEOUT_MARGIN_SECONDS, so the function's own
 * deadline comes before the state's. The stacks give these to Lambda; the cost estimate turns
 * memory into GB-seconds.
 *
 * @example
 * FUNCTION_SIZES.transcribe; // { memory: "1024 MB", timeout: "290 seconds" }
 */
export const FUNCTION_SIZES: Record<StageFunction, FunctionSize> = {
  ingest: sized("1024 MB", STAGE_TIMEOUT_SECONDS.Ingest),
  transcribe: sized("1024 MB", STAGE_TIMEOUT_SECONDS.Transcribe),
  reason: sized("512 MB", STAGE_TIMEOUT_SECONDS.Reason),
  synthesize: sized("1024 MB", STAGE_TIMEOUT_SECONDS.Synthesize),
  finalize: sized("256 MB", STAGE_TIMEOUT_SECONDS.Finalize),
  recordFailure: sized("256 MB", STAGE_TIMEOUT_SECONDS.Finalize),
};

/**
 * Memory (MB) and timeout (s) of each prompts function as deployed; each timeout is its Task
 * state's (PROMPT_TIMEOUT_SECONDS) less FUNCTION_TIMEOUT_MARGIN_SECONDS. Preparing and reporting
 * hold a manifest's rows in memory; a synthesis spools its audio to disk as it streams.
 *
 * @example
 * PROMPT_FUNCTION_SIZES.synthesizePrompt.timeout; // "290 seconds"
 */
export const PROMPT_FUNCTION_SIZES: Record<PromptFunction, FunctionSize> = {
  preparePrompts: sized("1024 MB", PROMPT_TIMEOUT_SECONDS.preparePrompts),
  synthesizePrompt: sized("1024 MB", PROMPT_TIMEOUT_SECONDS.synthesizePrompt),
  recordPromptFailure: sized("256 MB", PROMPT_TIMEOUT_SECONDS.recordPromptFailure),
  writePromptsReport: sized("1024 MB", PROMPT_TIMEOUT_SECONDS.writePromptsReport),
};

/**
 * Memory (MB) and timeout (s) of each voicemail batch function as deployed; each timeout is its
 * Task state's (BATCH_TIMEOUT_SECONDS) less FUNCTION_TIMEOUT_MARGIN_SECONDS. OpenBatch reads
 * nothing but its event.
 *
 * @example
 * BATCH_FUNCTION_SIZES.openBatch.timeout; // "20 seconds"
 */
export const BATCH_FUNCTION_SIZES: Record<BatchFunction, FunctionSize> = {
  openBatch: sized("256 MB", BATCH_TIMEOUT_SECONDS.openBatch),
};
