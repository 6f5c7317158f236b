import { buildVoicemailBatchDefinition, voicemailBatchRulePattern } from "../packages/workflow/src";
import { type ArnScope, batchStateMachinePermissions, stateMachineNames } from "./permissions";
import type { StageConfig } from "./stage-config";
import { startOnUpload, workflowStateMachine } from "./workflow-state-machine";

/**
 * The voicemail batch workflow: a CSV manifest (column `key`) landing under `incoming/batches/`
 * starts the state machine the workflow package builds (a Distributed Map running the voicemail
 * state machine once per key, at most `workflows.batchMaxConcurrency` at once, results under
 * `batch-results/`), named `<app>-<stage>-voicemail-batch`. Its role may do exactly what
 * `batchStateMachinePermissions` lists: a batch may name voicemails under `incoming/voicemail/`
 * only, the keys the voicemail workflow's Ingest may read.
 *
 * @example
 * const { stateMachine } = voicemailBatch({ bucket, config, scope, voicemailStateMachine });
 */
export function voicemailBatch({
  bucket,
  config,
  scope,
  voicemailStateMachine,
}: {
  bucket: sst.aws.Bucket;
  config: StageConfig;
  scope: $util.Output<ArnScope>;
  voicemailStateMachine: aws.sfn.StateMachine;
}) {
  const names = stateMachineNames($app.name, $app.stage);
  const stateMachine = workflowStateMachine("VoicemailBatch", {
    name: names.batch,
    definition: voicemailStateMachine.arn.apply((voicemailStateMachineArn) =>
      JSON.stringify(
        buildVoicemailBatchDefinition({
          voicemailStateMachineArn,
          maxConcurrency: config.workflows.batchMaxConcurrency,
        }),
      ),
    ),
    statements: $util.all([scope, bucket.name]).apply(([scope, bucketName]) =>
      batchStateMachinePermissions({
        ...scope,
        bucket: bucketName,
        voicemailStateMachineName: names.voicemail,
        batchStateMachineName: names.batch,
      }),
    ),
  });
  startOnUpload("VoicemailBatchArrived", "StartVoicemailBatch", {
    pattern: bucket.name.apply(voicemailBatchRulePattern),
    stateMachine,
  });
  return { stateMachine };
}
