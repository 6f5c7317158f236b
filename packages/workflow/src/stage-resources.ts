/**
 * How a deployed stage is found: the stacks write one SSM parameter per stage naming its
 * resources, and the CLI (`voxtrail run --stage NAME`) reads it. One format, defined here.
 */

/** The resources of one deployed stage, as the stage's SSM parameter holds them (JSON). */
export interface StageResources {
  /** The stage name (`dev`, `production`, ...). */
  stage: string;
  /** The AWS region the stage is deployed in. */
  region: string;
  /** The stage's bucket: uploads land under `incoming/`, artifacts and lineage beside them. */
  bucket: string;
  /** ARN of the voicemail state machine. */
  voicemailStateMachineArn: string;
  /** ARN of the IVR prompts state machine, once the stage deploys it. */
  promptsStateMachineArn?: string;
  /** ARN of the voicemail batch state machine, once the stage deploys it. */
  batchStateMachineArn?: string;
  /** ARN of the KMS key the stage's lineage digests are signed with, once the stage deploys it. */
  lineageSigningKeyArn?: string;
  /** The Glue database of the lineage index's tables (`edges`, `flows`, `records`, `jobs`), once deployed. */
  lineageIndexDatabase?: string;
  /** The Athena workgroup lineage questions run in (results in the stage's bucket), once deployed. */
  lineageIndexWorkgroup?: string;
  /** ARN of the managed policy that lets an auditor ask them (`LineageIndexReader`), once deployed. */
  lineageIndexReaderPolicyArn?: string;
}

/** Name of the SSM parameter that holds a stage's {@link StageResources}. */
export function stageParameterName(stage: string): string {
  return `/voxtrail/${stage}/resources`;
}
