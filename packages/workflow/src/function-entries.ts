import type { FunctionOf } from "./workflows";
import { PROMPTS_WORKFLOW, VOICEMAIL_WORKFLOW } from "./workflows";

/**
 * Every Lambda function of the stage: the voicemail and prompts workflows', the lineage signer and
 * the lineage index compactor.
 */
export type BundledFunction =
  | FunctionOf<typeof VOICEMAIL_WORKFLOW>
  | FunctionOf<typeof PROMPTS_WORKFLOW>
  | "lineageSigner"
  | "lineageIndexCompactor";

/**
 * Every Lambda function with its entry file, as the workflows, stacks/lineage-signing.ts and
 * stacks/lineage-index.ts name them (relative to the repository).
 */
export const FUNCTION_ENTRIES: readonly { fn: BundledFunction; entry: string }[] = [
  ...Object.entries(VOICEMAIL_WORKFLOW.entryFiles),
  ...Object.entries(PROMPTS_WORKFLOW.entryFiles),
  ["lineageSigner", "sign-lineage"],
  ["lineageIndexCompactor", "compact-lineage-index"],
].map(([fn, file]) => ({ fn: fn as BundledFunction, entry: `packages/functions/src/lambda/${file}.ts` }));
