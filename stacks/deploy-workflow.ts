import type { AslDefinition, Workflow } from "@voxtrail/workflow";
import { type FunctionSettings, stageFunction } from "./function-settings";
import {
  type ArnScope,
  type DeployedFunction,
  type IamStatement,
  stagePermissions,
  stateMachineName,
  stateMachineNames,
} from "./permissions";
import { startOnUpload, workflowStateMachine } from "./workflow-state-machine";

/**
 * What a workflow's definition and statements are built from, resolved: where it runs, its
 * bucket, its functions' ARNs.
 */
export interface WorkflowTarget<F extends string> extends ArnScope {
  bucket: string;
  functionArns: Record<F, string>;
}

/** What a workflow's Lambda functions need besides its descriptor and the stage's settings. */
export interface WorkflowFunctionOptions {
  /** The prefix of their logical names: `<prefix><Function>`, e.g. `StageIngest`. */
  prefix: string;
  /** The bus outcome events go to: the functions that publish one may put events on it. */
  outcomeBusArn: $util.Input<string>;
  /** Environment variables on top of the stage's (stacks/function-settings.ts). */
  environment?: Record<string, $util.Input<string>>;
  /** Reserved concurrency of the functions that gate a service (stage-config.ts `synthesisGates`). */
  reservedConcurrency?: Partial<Record<string, number>>;
}

/** How a workflow is deployed: its resources' logical names, and what its state machine runs with. */
export interface WorkflowDeployment<F extends DeployedFunction> {
  /**
   * Logical names: the state machine's (its role is `<id>StateMachineRole`, its log group
   * `<id>ExecutionLogs`), the rule's that starts it, and that rule's target's.
   */
  ids: { stateMachine: string; rule: string; target: string };
  bucket: sst.aws.Bucket;
  settings: FunctionSettings;
  /** Its ASL document (the descriptor's `definition`, given what it needs). */
  definition: (target: WorkflowTarget<F>) => $util.Input<AslDefinition>;
  /** Exactly what its state machine's role may do (stacks/permissions.ts), besides log delivery. */
  statements: (target: WorkflowTarget<F>) => $util.Input<IamStatement[]>;
  /** What its Lambda functions need besides the descriptor and the stage's settings. */
  functions: WorkflowFunctionOptions;
}

/**
 * Deploys `workflow` as its descriptor says: one Lambda function per function (its entry file and
 * size, the stage's settings, exactly its permissions of stacks/permissions.ts), the state machine
 * under its fixed name `<app>-<stage>-<name>` running `definition`, and the rule that starts it on
 * an upload matching the descriptor's `rulePattern`.
 *
 * @example
 * const { stateMachine, functions } = deployWorkflow(PROMPTS_WORKFLOW, {
 *   ids: { stateMachine: "Prompts", rule: "PromptsManifestArrived", target: "StartPrompts" },
 *   bucket,
 *   settings,
 *   functions: { prefix: "Prompt", outcomeBusArn },
 *   definition: ({ functionArns }) => PROMPTS_WORKFLOW.definition(functionArns, 4),
 *   statements: (target) => promptsStateMachinePermissions({ ...target, promptsStateMachineName }),
 * });
 */
export function deployWorkflow<F extends DeployedFunction>(
  workflow: Workflow<F>,
  args: WorkflowDeployment<F>,
): { stateMachine: aws.sfn.StateMachine; functions: Record<F, sst.aws.Function> } {
  const { bucket, settings, functions: options } = args;
  const names = stateMachineNames($app.name, $app.stage);
  const functions = Object.fromEntries(
    workflow.functions.map((fn) => [
      fn,
      stageFunction(`${options.prefix}${fn[0]?.toUpperCase()}${fn.slice(1)}`, settings, {
        entry: workflow.entryFiles[fn],
        size: workflow.sizes[fn],
        callsCartesia: settings.callsCartesia[fn],
        environment: options.environment,
        ...(options.reservedConcurrency?.[fn] === undefined
          ? {}
          : { reservedConcurrency: options.reservedConcurrency[fn] }),
        permissions: $util
          .all([settings.scope, settings.selection, bucket.name, options.outcomeBusArn])
          .apply(([scope, selection, bucketName, outcomeBusArn]) =>
            stagePermissions(fn, {
              ...scope,
              bucket: bucketName,
              outcomeBusArn,
              voicemailStateMachineName: names.voicemail,
              promptsStateMachineName: names.prompts,
              sonicEndpoint: selection.sonicEndpoint,
              bedrockModelId: selection.bedrockModelId,
              recordsUri: selection.recordsUri,
              transcribeJobPrefix: selection.transcribeJobPrefix,
              transcribeDataAccessRoleArn: selection.transcribeDataAccessRoleArn,
              retainsLineage: settings.retainsLineage,
              redacts: settings.redacts,
            }),
          ),
      }),
    ]),
  ) as Record<F, sst.aws.Function>;
  const functionArns = $util.all(Object.fromEntries(workflow.functions.map((fn) => [fn, functions[fn].arn])));
  const target = $util.all([settings.scope, bucket.name, functionArns]).apply(
    ([scope, bucketName, arns]): WorkflowTarget<F> => ({
      ...scope,
      bucket: bucketName,
      functionArns: arns as Record<F, string>,
    }),
  );

  const stateMachine = workflowStateMachine(args.ids.stateMachine, {
    name: stateMachineName($app.name, $app.stage, workflow),
    scope: settings.scope,
    definition: target
      .apply((resolved) => $util.output(args.definition(resolved)))
      .apply((definition) => JSON.stringify(definition)),
    statements: target.apply((resolved) => $util.output(args.statements(resolved))),
  });
  startOnUpload(args.ids.rule, args.ids.target, {
    pattern: bucket.name.apply((bucketName) => workflow.rulePattern(bucketName)),
    scope: settings.scope,
    stateMachine,
  });
  return { stateMachine, functions };
}
