import { WORKFLOWS, type WorkflowFunction } from "./workflows";

/**
 * Every Lambda function of the stage: every workflow's ({@link WORKFLOWS}), the lineage signer
 * and the lineage index compactor.
 */
export type BundledFunction = WorkflowFunction | "lineageSigner" | "lineageIndexCompactor";

/**
 * Every Lambda function with its entry file, as the workflows, stacks/lineage-signing.ts and
 * stacks/lineage-index.ts name them (relative to the repository).
 */
export const FUNCTION_ENTRIES: readonly { fn: BundledFunction; entry: string }[] = [
  ...Object.values(WORKFLOWS).flatMap((workflow) => Object.entries(workflow.entryFiles)),
  ["lineageSigner", "sign-lineage"],
  ["lineageIndexCompactor", "compact-lineage-index"],
].map(([fn, file]) => ({ fn: fn as BundledFunction, entry: `packages/functions/src/lambda/${file}.ts` }));
