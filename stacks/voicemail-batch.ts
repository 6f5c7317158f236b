import { BATCH_WORKFLOW } from "@voxtrail/workflow";
import { deployWorkflow } from "./deploy-workflow";
import type { FunctionSettings } from "./function-settings";
import { batchStateMachinePermissions, stateMachineNames } from "./permissions";
import type { StageConfig } from "./stage-config";

/**
 * The voicemail batch workflow as stacks/deploy-workflow.ts deploys it: a CSV manifest (column
 * `key`) landing under `incoming/batches/` starts the state machine the workflow package builds
 * (OpenBatch decoding the manifest's key from the event, then a Distributed Map running the
 * voicemail state machine once per key, at most `workflows.batchMaxConcurrency` at once, results
 * under `batch-results/`), named `<app>-<stage>-voicemail-batch`. Its one function, OpenBatch
 * (`BatchOpenBatch`), is granted nothing (`stagePermissions`: it calls no service); the state
 * machine's role may do exactly what `batchStateMachinePermissions` lists: invoke OpenBatch, and
 * name voicemails under `incoming/voicemail/` only, the keys the voicemail workflow's Ingest may
 * read.
 *
 * @example
 * const { stateMachine } = voicemailBatch({ bucket, config, settings, outcomeBusArn, voicemailStateMachine });
 */
export function voicemailBatch({
  bucket,
  config,
  settings,
  outcomeBusArn,
  voicemailStateMachine,
}: {
  bucket: sst.aws.Bucket;
  config: StageConfig;
  settings: FunctionSettings;
  outcomeBusArn: $util.Output<string>;
  voicemailStateMachine: aws.sfn.StateMachine;
}) {
  const names = stateMachineNames($app.name, $app.stage);
  const { stateMachine } = deployWorkflow(BATCH_WORKFLOW, {
    ids: { stateMachine: "VoicemailBatch", rule: "VoicemailBatchArrived", target: "StartVoicemailBatch" },
    bucket,
    settings,
    functions: { prefix: "Batch", outcomeBusArn },
    definition: ({ functionArns }) =>
      voicemailStateMachine.arn.apply((arn) =>
        BATCH_WORKFLOW.definition(functionArns, arn, config.workflows.batchMaxConcurrency),
      ),
    statements: (target) =>
      batchStateMachinePermissions({
        ...target,
        voicemailStateMachineName: names.voicemail,
        batchStateMachineName: names.batch,
      }),
  });
  return { stateMachine };
}
