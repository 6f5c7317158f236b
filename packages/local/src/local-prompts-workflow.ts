import { DuplicateDelivery, Gauge, PromptRow, type PromptsReport } from "@voxtrail/core";
import {
  createPromptHandlers,
  type PreparedPrompts,
  type PromptOutcome,
  type StageDependencies,
  type StageHandler,
} from "@voxtrail/functions";
import {
  LOCAL_ITEMS_FIELD,
  localMapDefinition,
  PROMPTS_WORKFLOW,
  type PromptFunction,
} from "@voxtrail/workflow";
import type { PromptsProgress } from "./prompts-progress";
import type { LocalWorkflow } from "./workflow-runtime";

/**
 * The prompts workflow as the local runtime runs it. Its one difference from the cloud: the
 * definition is adapted by `localMapDefinition`, so the Map gets the prepared rows in its input
 * instead of reading rows.jsonl from S3, and PreparePrompts hands them over (a duplicate
 * delivery, which goes to the `Duplicate` state, has none). The handlers report each job's
 * preparation and each prompt's outcome to `onProgress`, and every prompt attempt records how
 * many prompts were in flight when it started.
 *
 * @example
 * const runtime = await WorkflowRuntime.start(localPromptsWorkflow(4, console.log), { storeDir: ".voxtrail" });
 */
export function localPromptsWorkflow(
  maxConcurrency: number,
  onProgress: (progress: PromptsProgress) => void,
): LocalWorkflow<PromptFunction, typeof PromptsReport> {
  return {
    workflow: PROMPTS_WORKFLOW,
    handlers: (deps) => localPromptHandlers(deps, onProgress),
    definition: (functionArns) =>
      localMapDefinition(PROMPTS_WORKFLOW.definition(functionArns, maxConcurrency)),
  };
}

function localPromptHandlers(
  deps: StageDependencies,
  onProgress: (progress: PromptsProgress) => void,
): Record<PromptFunction, StageHandler<unknown>> {
  const inFlight = new Gauge();
  const handlers = createPromptHandlers({ ...deps, jobsInFlight: () => inFlight.value });
  /** A prompt handler that reports each outcome (and counts the prompts in flight). */
  const reporting =
    (handler: StageHandler<unknown>, gauge?: Gauge): StageHandler<unknown> =>
    async (event, context) => {
      gauge?.enter();
      try {
        const outcome = (await handler(event, context)) as PromptOutcome;
        onProgress({ type: "prompt", outcome });
        return outcome;
      } finally {
        gauge?.leave();
      }
    };
  return {
    ...handlers,
    // The one step the cloud does in the Map's ItemReader: hand the prepared rows to the Map.
    preparePrompts: async (event, context) => {
      const output = await handlers.preparePrompts(event, context);
      if (DuplicateDelivery.safeParse(output).success) return output;
      const prepared = output as PreparedPrompts;
      onProgress({
        type: "prepared",
        jobId: prepared.jobId,
        rows: prepared.rowCount,
        badRows: prepared.badRowCount,
      });
      return { ...prepared, [LOCAL_ITEMS_FIELD]: await readRows(deps, prepared.rows.key) };
    },
    synthesizePrompt: reporting(handlers.synthesizePrompt, inFlight),
    recordPromptFailure: reporting(handlers.recordPromptFailure),
  };
}

/** rows.jsonl, parsed as the Distributed Map's ItemReader (InputType JSONL) would. */
async function readRows({ store }: StageDependencies, key: string): Promise<PromptRow[]> {
  const text = (await store.getBytes(key)).toString("utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => PromptRow.parse(JSON.parse(line)));
}
