import { BATCH_WORKFLOW } from "@voxtrail/workflow";
import { deployWorkflow } from "./deploy-workflow";
import type { FunctionSettings } from "./function-settings";
import { batchStateMachinePermissions, stateMachineNames } from "./permissions";
import type { StageConfig } from "./stage-config";

/**
 * The voicemail batch workflow as stacks/deploy-workflow.ts deploys it: a CSV manifest (column
 * `key`) landing under `incoming/batches/` starts the state machine the workflow package builds
 * (a Distributed Map running the voicemail state machine once per key, at most
 * `workflows.batchMaxConcurrency` at once, results under `batch-results/`), named
 * `<app>-<stage>-voicemail-batch`. It has no functions; its role may do exactly what
 * `batchStateMachinePermissions` lists: a batch may name voicemails under `incoming/voicemail/`
 * only, the keys the voicemail workflow's Ingest may read.
 *
 * @example
 * const { stateMachine } = voicemailBatch({ bucket, config, settings, voicemailStateMachine });
 */
export function voicemailBatch({
  bucket,
  config,
  settings,
  voicemailStateMachine,
}: {
  bucket: sst.aws.Bucket;
  config: StageConfig;
  settings: FunctionSettings;
  voicemailStateMachine: aws.sfn.StateMachine;
}) {
  const names = stateMachineNames($app.name, $app.stage);
  const { stateMachine } = deployWorkflow(BATCH_WORKFLOW, {
    ids: { stateMachine: "VoicemailBatch", rule: "VoicemailBatchArrived", target: "StartVoicemailBatch" },
    bucket,
    settings,
    definition: () =>
      voicemailStateMachine.arn.apply((arn) =>
        BATCH_WORKFLOW.definition(arn, config.workflows.batchMaxConcurrency),
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
