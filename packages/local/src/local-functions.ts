import { BATCH_WORKFLOW, PROMPTS_WORKFLOW, VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";

/**
 * The ARNs the local runtime gives `functions` in the definition it runs. They have the shape of
 * real Lambda ARNs (the engine validates them) in a placeholder account.
 *
 * @example
 * localFunctionArns(["ingest"]).ingest; // "arn:aws:lambda:us-east-1:000000000000:function:voxtrail-local-ingest"
 */
export function localFunctionArns<F extends string>(functions: readonly F[]): Record<F, string> {
  return Object.fromEntries(
    functions.map((fn) => [fn, `arn:aws:lambda:us-east-1:000000000000:function:voxtrail-local-${fn}`]),
  ) as Record<F, string>;
}

/**
 * The local ARNs of the voicemail workflow's stage functions.
 *
 * @example
 * buildVoicemailDefinition({ functionArns: LOCAL_FUNCTION_ARNS });
 */
export const LOCAL_FUNCTION_ARNS = localFunctionArns(VOICEMAIL_WORKFLOW.functions);

/**
 * The local ARNs of the prompts workflow's functions.
 *
 * @example
 * buildPromptsDefinition({ functionArns: LOCAL_PROMPT_FUNCTION_ARNS, maxConcurrency: 2 });
 */
export const LOCAL_PROMPT_FUNCTION_ARNS = localFunctionArns(PROMPTS_WORKFLOW.functions);

/**
 * The local ARNs of the voicemail batch workflow's functions.
 *
 * @example
 * buildVoicemailBatchDefinition({ functionArns: LOCAL_BATCH_FUNCTION_ARNS, voicemailStateMachineArn, maxConcurrency: 2 });
 */
export const LOCAL_BATCH_FUNCTION_ARNS = localFunctionArns(BATCH_WORKFLOW.functions);
