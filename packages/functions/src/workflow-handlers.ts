import { InvalidInput } from "@voxtrail/core";
import type { BatchFunction, PromptFunction, StageFunction } from "@voxtrail/workflow";
import type { StageDependencies } from "./dependencies";
import { finalizeStage } from "./handlers/finalize";
import { ingestStage } from "./handlers/ingest";
import { openBatchStage } from "./handlers/open-batch";
import { preparePromptsStage } from "./handlers/prepare-prompts";
import { reasonStage } from "./handlers/reason";
import { recordFailureStage } from "./handlers/record-failure";
import { recordPromptFailureStage } from "./handlers/record-prompt-failure";
import { synthesizeStage } from "./handlers/synthesize";
import { synthesizePromptStage } from "./handlers/synthesize-prompt";
import { transcribeStage } from "./handlers/transcribe";
import { transcriptionJobHandler } from "./handlers/transcription-job";
import { writePromptsReportStage } from "./handlers/write-prompts-report";
import type { KernelDependencies, StageDefinition, StageNeeds } from "./kernel/stage-definition";
import { type StageHandler, stageHandler } from "./kernel/stage-handler";

/**
 * What the prompts workflow's functions talk to: no transcriber, reasoner, records or event bus;
 * whether a claimed job's execution still runs (PreparePrompts claims each job).
 */
export type PromptDependencies = StageNeeds<"synthesizer" | "language" | "executions">;

// biome-ignore lint/suspicious/noExplicitAny: a table of stages whose inputs and outputs differ.
type AnyStage<D extends KernelDependencies> = StageDefinition<D, any, any, any>;

/**
 * The voicemail workflow's stage definitions, by the function that runs each (the Task states'
 * order is `VOICEMAIL_STAGES` of `@voxtrail/workflow`).
 */
export const VOICEMAIL_STAGE_DEFINITIONS = {
  ingest: ingestStage,
  transcribe: transcribeStage,
  reason: reasonStage,
  synthesize: synthesizeStage,
  finalize: finalizeStage,
  recordFailure: recordFailureStage,
} satisfies Record<StageFunction, AnyStage<StageDependencies>>;

/** The prompts workflow's stage definitions, by the function that runs each. */
export const PROMPT_STAGE_DEFINITIONS = {
  preparePrompts: preparePromptsStage,
  synthesizePrompt: synthesizePromptStage,
  recordPromptFailure: recordPromptFailureStage,
  writePromptsReport: writePromptsReportStage,
} satisfies Record<PromptFunction, AnyStage<PromptDependencies>>;

/** The voicemail batch workflow's stage definitions, by the function that runs each. */
export const BATCH_STAGE_DEFINITIONS = {
  openBatch: openBatchStage,
} satisfies Record<BatchFunction, AnyStage<KernelDependencies>>;

/**
 * The handler of every stage in `stages`, built by the kernel over one set of dependencies: what
 * the local runtime maps each Task state to (in Lambda, each entry point builds only its own).
 *
 * @example
 * const handlers = workflowHandlers(VOICEMAIL_STAGE_DEFINITIONS, deps);
 * await handlers.ingest(event, context);
 */
export function workflowHandlers<F extends string, D extends KernelDependencies>(
  stages: Record<F, AnyStage<D>>,
  deps: D,
): Record<F, StageHandler<unknown>> {
  return Object.fromEntries(
    Object.entries<AnyStage<D>>(stages).map(([fn, stage]) => [fn, stageHandler(stage, deps)]),
  ) as Record<F, StageHandler<unknown>>;
}

/**
 * The voicemail workflow's handlers over `deps`. With a transcription service in `deps` (and what
 * resumes the workflow waiting for its job), the Transcribe function runs its job's steps
 * (handlers/transcription-job.ts); a service without a callback is `InvalidInput`.
 *
 * @example
 * const handlers = createStageHandlers(deps);
 * await handlers.ingest(event, context);
 */
export function createStageHandlers(deps: StageDependencies): Record<StageFunction, StageHandler<unknown>> {
  const handlers = workflowHandlers<StageFunction, StageDependencies>(VOICEMAIL_STAGE_DEFINITIONS, deps);
  const { transcriptionService, workflowCallback } = deps;
  if (transcriptionService) {
    if (!workflowCallback) {
      throw new InvalidInput(
        "a transcription service needs a workflow callback: the workflow waits for its jobs",
      );
    }
    handlers.transcribe = transcriptionJobHandler({ ...deps, transcriptionService, workflowCallback });
  }
  return handlers;
}

/**
 * The prompts workflow's handlers over `deps`.
 *
 * @example
 * const handlers = createPromptHandlers(deps);
 * await handlers.preparePrompts(event, context);
 */
export function createPromptHandlers(
  deps: PromptDependencies,
): Record<PromptFunction, StageHandler<unknown>> {
  return workflowHandlers<PromptFunction, PromptDependencies>(PROMPT_STAGE_DEFINITIONS, deps);
}

/**
 * The voicemail batch workflow's handlers over `deps`.
 *
 * @example
 * const handlers = createBatchHandlers(deps);
 * await handlers.openBatch(event, context); // { bucket, key, time }
 */
export function createBatchHandlers(deps: KernelDependencies): Record<BatchFunction, StageHandler<unknown>> {
  return workflowHandlers<BatchFunction, KernelDependencies>(BATCH_STAGE_DEFINITIONS, deps);
}
