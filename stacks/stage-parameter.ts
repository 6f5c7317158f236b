import { type StageResources, stageParameterName } from "@voxtrail/workflow";

/**
 * The SSM parameter that says where this stage's resources are (`/voxtrail/<stage>/resources`,
 * a JSON {@link StageResources}), so `voxtrail run --stage NAME` finds the bucket and state
 * machine without the deploy's outputs. A plain String: it holds names and ARNs, no secret.
 *
 * @example
 * stageParameter({ bucket, voicemailStateMachine, promptsStateMachine, batchStateMachine, lineageSigningKey, lineageIndex });
 */
export function stageParameter({
  bucket,
  voicemailStateMachine,
  promptsStateMachine,
  batchStateMachine,
  lineageSigningKey,
  lineageIndex,
}: {
  bucket: sst.aws.Bucket;
  voicemailStateMachine: aws.sfn.StateMachine;
  promptsStateMachine: aws.sfn.StateMachine;
  batchStateMachine: aws.sfn.StateMachine;
  lineageSigningKey: aws.kms.Key;
  /** The lineage index's Glue database, Athena workgroup and auditors' reader policy (stacks/lineage-index.ts). */
  lineageIndex: {
    database: aws.glue.CatalogDatabase;
    workgroup: aws.athena.Workgroup;
    readerPolicy: aws.iam.Policy;
  };
}) {
  const region = aws.getRegionOutput().region;
  return new aws.ssm.Parameter("StageResources", {
    name: stageParameterName($app.stage),
    type: "String",
    description: `Resources of the voxtrail stage ${$app.stage}`,
    value: $util
      .all([
        region,
        bucket.name,
        voicemailStateMachine.arn,
        promptsStateMachine.arn,
        batchStateMachine.arn,
        lineageSigningKey.arn,
        lineageIndex.database.name,
        lineageIndex.workgroup.name,
        lineageIndex.readerPolicy.arn,
      ])
      .apply(
        ([
          region,
          bucketName,
          voicemailArn,
          promptsArn,
          batchArn,
          signingKeyArn,
          indexDatabase,
          indexWorkgroup,
          readerPolicyArn,
        ]) => {
          const resources: StageResources = {
            stage: $app.stage,
            region,
            bucket: bucketName,
            voicemailStateMachineArn: voicemailArn,
            promptsStateMachineArn: promptsArn,
            batchStateMachineArn: batchArn,
            lineageSigningKeyArn: signingKeyArn,
            lineageIndexDatabase: indexDatabase,
            lineageIndexWorkgroup: indexWorkgroup,
            lineageIndexReaderPolicyArn: readerPolicyArn,
          };
          return JSON.stringify(resources);
        },
      ),
  });
}
