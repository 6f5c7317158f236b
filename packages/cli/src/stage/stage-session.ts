import { S3Client } from "@aws-sdk/client-s3";
import { SFNClient } from "@aws-sdk/client-sfn";
import { SSMClient } from "@aws-sdk/client-ssm";
import { S3Store } from "@voxtrail/storage";
import type { StageResources } from "@voxtrail/workflow";
import { ExecutionFinder } from "./execution-finder";
import { readStageResources } from "./stage-lookup";

/** How far this machine's clock may be ahead of Step Functions' when looking for executions. */
const CLOCK_SKEW_MS = 60_000;

/** A deployed stage, set up for following one workflow's jobs on it. */
export interface StageSession {
  resources: StageResources;
  /** The stage's bucket. */
  store: S3Store;
  sfn: SFNClient;
  /** A finder on the workflow's state machine, for executions started from now on. */
  finder: ExecutionFinder;
}

/**
 * Finds a deployed stage through its SSM parameter and sets up its bucket, Step Functions and a
 * finder on the state machine `stateMachineArnOf` picks from its resources (which may reject a
 * stage that lacks it). Every client uses the standard AWS configuration (region, profiles,
 * `AWS_ENDPOINT_URL_<SERVICE>`).
 *
 * @example
 * const { resources, store, sfn, finder } = await openStage("dev", (resources) => resources.voicemailStateMachineArn);
 */
export async function openStage(
  stage: string,
  stateMachineArnOf: (resources: StageResources) => string,
): Promise<StageSession> {
  const resources = await readStageResources(new SSMClient({}), stage);
  const stateMachineArn = stateMachineArnOf(resources);
  const sfn = new SFNClient({ region: resources.region });
  return {
    resources,
    store: new S3Store({ client: new S3Client({ region: resources.region }), bucket: resources.bucket }),
    sfn,
    finder: new ExecutionFinder(sfn, stateMachineArn, new Date(Date.now() - CLOCK_SKEW_MS)),
  };
}
