import type { PromptFunction } from "@voxtrail/workflow";
import { preparePrompts } from "./handlers/prepare-prompts";
import { recordPromptFailure } from "./handlers/record-prompt-failure";
import { synthesizePrompt } from "./handlers/synthesize-prompt";
import { writePromptsReport } from "./handlers/write-prompts-report";
import { type StageHandler, stageHandler } from "./middleware/middy";
import type { PromptDependencies } from "./prompts/prompt-dependencies";
import {
  PreparedPrompts,
  PreparePromptsInput,
  RecordPromptFailureInput,
  SynthesizePromptInput,
} from "./prompts/prompt-state";

/**
 * The Lambda handler of every prompts function, built over one set of dependencies, as
 * `createStageHandlers` does for the voicemail stages: Lambda entry points export one of these;
 * the local prompts runtime maps each Task state to the same handler.
 *
 * @example
 * const handlers = createPromptHandlers(deps);
 * await handlers.preparePrompts(event, context);
 */
export function createPromptHandlers(
  deps: PromptDependencies,
): Record<PromptFunction, StageHandler<unknown>> {
  return {
    preparePrompts: stageHandler(deps.logger, "PreparePrompts", PreparePromptsInput, (input) =>
      preparePrompts(deps, input),
    ),
    synthesizePrompt: stageHandler(deps.logger, "SynthesizePrompt", SynthesizePromptInput, (input) =>
      synthesizePrompt(deps, input),
    ),
    recordPromptFailure: stageHandler(deps.logger, "RecordPromptFailure", RecordPromptFailureInput, (input) =>
      recordPromptFailure(deps, input),
    ),
    writePromptsReport: stageHandler(deps.logger, "WritePromptsReport", PreparedPrompts, (input) =>
      writePromptsReport(deps, input),
    ),
  };
}
