import type { PromptFunction } from "./prompts-definition";
import type { StageFunction } from "./stages";

/**
 * Memory (MB) and timeout (s) of each stage function as deployed: synthesis and transcription
 * move audio. The stacks give these to Lambda; the cost estimate turns memory into GB-seconds.
 *
 * @example
 * FUNCTION_SIZES.transcribe.memory; // "1024 MB"
 */
export const FUNCTION_SIZES: Record<StageFunction, { memory: `${number} MB`; timeout: `${number} seconds` }> =
  {
    ingest: { memory: "1024 MB", timeout: "60 seconds" },
    transcribe: { memory: "1024 MB", timeout: "300 seconds" },
    reason: { memory: "512 MB", timeout: "60 seconds" },
    synthesize: { memory: "1024 MB", timeout: "300 seconds" },
    finalize: { memory: "256 MB", timeout: "30 seconds" },
    recordFailure: { memory: "256 MB", timeout: "30 seconds" },
  };

/**
 * Memory (MB) and timeout (s) of each prompts function as deployed; timeouts match the prompts
 * workflow's Task timeouts (PROMPT_TIMEOUT_SECONDS). Preparing and reporting hold a manifest's
 * rows in memory; a synthesis spools its audio to disk as it streams.
 *
 * @example
 * PROMPT_FUNCTION_SIZES.synthesizePrompt.timeout; // "300 seconds"
 */
export const PROMPT_FUNCTION_SIZES: Record<
  PromptFunction,
  { memory: `${number} MB`; timeout: `${number} seconds` }
> = {
  preparePrompts: { memory: "1024 MB", timeout: "900 seconds" },
  synthesizePrompt: { memory: "1024 MB", timeout: "300 seconds" },
  recordPromptFailure: { memory: "256 MB", timeout: "30 seconds" },
  writePromptsReport: { memory: "1024 MB", timeout: "900 seconds" },
};
