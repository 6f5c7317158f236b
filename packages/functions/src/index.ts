/**
 * @voxtrail/functions: the workflows' stage handlers over one set of dependencies (what the local
 * runtime wires to its Task states), the state they pass, and the lineage handlers. The stage
 * kernel is `@voxtrail/functions/kernel`; the Lambda wiring `@voxtrail/functions/lambda`.
 */
export { loadBoundaryPolicy } from "./boundary/policy-file";
export { languagesFromEnvironment } from "./call-language";
export type { StageDependencies } from "./dependencies";
export { EventBridgePublisher } from "./events/eventbridge-publisher";
export { type IndexRun, updateLineageIndex } from "./handlers/compact-lineage-index";
export { type DigestRun, signLineageDigest } from "./handlers/sign-lineage-digest";
export type { StageHandler } from "./kernel/stage-handler";
export { PreparedPrompts, type PromptOutcome } from "./prompts/prompt-state";
export { JobState, SynthesizeInput } from "./state";
export { createBatchHandlers, createPromptHandlers, createStageHandlers } from "./workflow-handlers";
