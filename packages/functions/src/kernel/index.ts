/**
 * @voxtrail/functions/kernel: the stage kernel: a stage definition made a handler, the prompts
 * workflow's definitions, and the attempt's temporary directories.
 */

export { openTempDir, removeTempDir, tempRoot } from "../middleware/temp-dirs";
export { PROMPT_STAGE_DEFINITIONS } from "../workflow-handlers";
export { stageHandler } from "./stage-handler";
