import {
  buildPromptsDefinition,
  PROMPT_FUNCTION_SIZES,
  PROMPT_FUNCTIONS,
  type PromptFunction,
  promptsRulePattern,
} from "../packages/workflow/src";
import { type FunctionSettings, stageFunction } from "./function-settings";
import { promptsStateMachinePermissions, stagePermissions, stateMachineNames } from "./permissions";
import { promptsMaxConcurrency, type StageConfig } from "./stage-config";
import { startOnUpload, workflowStateMachine } from "./workflow-state-machine";

/** The file name of each prompts function's Lambda entry point under packages/functions/src/lambda/. */
const ENTRY_FILES: Record<PromptFunction, string> = {
  preparePrompts: "prepare-prompts",
  synthesizePrompt: "synthesize-prompt",
  recordPromptFailure: "record-prompt-failure",
  writePromptsReport: "write-prompts-report",
};

/**
 * The IVR prompts workflow: one Lambda function per prompts handler (the stage's synthesizer and
 * boundary policy, exactly the permissions of stacks/permissions.ts), the state machine the
 * workflow package builds (a Distributed Map synthesizing `promptsMaxConcurrency` prompts at once:
 * the Sonic endpoint's capacity, or the configured figure), named `<app>-<stage>-prompts`, and the
 * rule that starts it when a manifest lands under `incoming/prompts/`.
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
  const names = stateMachineNames($app.name, $app.stage);
  const functions = Object.fromEntries(
    PROMPT_FUNCTIONS.map((fn) => [
      fn,
      stageFunction(`Prompt${fn[0]?.toUpperCase()}${fn.slice(1)}`, settings, {
        entry: ENTRY_FILES[fn],
        size: PROMPT_FUNCTION_SIZES[fn],
        callsCartesia: fn === "synthesizePrompt" && config.providers.synthesizer === "cartesia-api",
        permissions: $util
          .all([settings.scope, settings.selection, bucket.name, outcomeBusArn])
          .apply(([scope, selection, bucketName, outcomeBusArn]) =>
            stagePermissions(fn, {
              ...scope,
              bucket: bucketName,
              outcomeBusArn,
              voicemailStateMachineName: names.voicemail,
              sonicEndpoint: selection.sonicEndpoint,
            }),
          ),
      }),
    ]),
  ) as Record<PromptFunction, sst.aws.Function>;
  const functionArns = $util
    .all(Object.fromEntries(PROMPT_FUNCTIONS.map((fn) => [fn, functions[fn].arn])))
    .apply((arns) => arns as Record<PromptFunction, string>);

  const stateMachine = workflowStateMachine("Prompts", {
    name: names.prompts,
    definition: functionArns.apply((arns) =>
      JSON.stringify(
        buildPromptsDefinition({ functionArns: arns, maxConcurrency: promptsMaxConcurrency(config) }),
      ),
    ),
    statements: $util.all([settings.scope, bucket.name, functionArns]).apply(([scope, bucketName, arns]) =>
      promptsStateMachinePermissions({
        ...scope,
        bucket: bucketName,
        promptsStateMachineName: names.prompts,
        functionArns: arns,
      }),
    ),
  });
  startOnUpload("PromptsManifestArrived", "StartPrompts", {
    pattern: bucket.name.apply(promptsRulePattern),
    stateMachine,
  });
  return { stateMachine, functions };
}
