import { PROMPTS_WORKFLOW } from "@voxtrail/workflow";
import { deployWorkflow } from "./deploy-workflow";
import type { FunctionSettings } from "./function-settings";
import { promptsStateMachinePermissions, stateMachineNames } from "./permissions";
import { promptsMaxConcurrency, type StageConfig, synthesisGates } from "./stage-config";

/**
 * The IVR prompts workflow as stacks/deploy-workflow.ts deploys it: one Lambda function per
 * prompts handler, the state machine the workflow package builds (a Distributed Map synthesizing
 * `promptsMaxConcurrency` prompts at once: the Sonic endpoint's capacity, or the configured
 * figure), named `<app>-<stage>-prompts`, whose role may also read rows, write map results and
 * run its own map (`promptsStateMachinePermissions`), and the rule that starts it when a manifest
 * lands under `incoming/prompts/`.
 *
 * @example
 * const { stateMachine, functions } = prompts({ bucket, config, settings, outcomeBusArn });
 */
export function prompts({
  bucket,
  config,
  settings,
  outcomeBusArn,
}: {
  bucket: sst.aws.Bucket;
  config: StageConfig;
  settings: FunctionSettings;
  outcomeBusArn: $util.Output<string>;
}) {
  const promptsStateMachineName = stateMachineNames($app.name, $app.stage).prompts;
  return deployWorkflow(PROMPTS_WORKFLOW, {
    ids: { stateMachine: "Prompts", rule: "PromptsManifestArrived", target: "StartPrompts" },
    bucket,
    settings,
    functions: {
      prefix: "Prompt",
      outcomeBusArn,
      reservedConcurrency: { synthesizePrompt: synthesisGates(config)?.synthesizePrompt },
    },
    definition: ({ functionArns }) =>
      PROMPTS_WORKFLOW.definition(functionArns, promptsMaxConcurrency(config)),
    statements: (target) => promptsStateMachinePermissions({ ...target, promptsStateMachineName }),
  });
}
