import { lambdaErrorCause, type PromptResult } from "@voxtrail/core";
import { promptKeys } from "@voxtrail/workflow";
import { defineStage, type KernelDependencies } from "../kernel/stage-definition";
import { type PromptOutcome, RecordPromptFailureInput } from "../prompts/prompt-state";

/**
 * RecordPromptFailure: the Map's Catch hands it a prompt whose synthesis failed for good; it
 * writes the prompt's result object with the error's name and message (ours are log-safe; others
 * were reduced to their name by the stage middleware), so the report names the failure and a
 * rerun redoes the prompt. The failed attempt's own activity record was written by SynthesizePrompt.
 */
export const recordPromptFailureStage = defineStage<KernelDependencies>()({
  name: "RecordPromptFailure",
  input: RecordPromptFailureInput,
  recorded: false,
  flows: () => [],
  open: (input) => ({
    jobId: input.jobId,
    logKeys: { promptId: input.row.id },
    inputs: [],
    carry: undefined,
  }),
  run: async ({ jobId, row, failure }, { deps }): Promise<PromptOutcome> => {
    const result: PromptResult = {
      id: row.id,
      line: row.line,
      rowHash: row.rowHash,
      status: "failed",
      error: { name: failure.Error, message: causeMessage(failure.Cause) },
    };
    await deps.store.put(promptKeys.result(jobId, row.id), `${JSON.stringify(result, null, 2)}\n`, {
      contentType: "application/json",
    });
    return { id: row.id, status: "failed" };
  },
});

/** The `errorMessage` of a Lambda error's Cause (`{"errorType","errorMessage"}`), or `""`. */
function causeMessage(cause: string | undefined): string {
  return lambdaErrorCause(cause)?.errorMessage ?? "";
}
