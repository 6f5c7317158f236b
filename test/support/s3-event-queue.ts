import { randomUUID } from "node:crypto";
import {
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from "@aws-sdk/client-eventbridge";
import {
  CreateBucketCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketVersioningCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { type EventPattern, voicemailRulePattern } from "@voxtrail/workflow";
import { motoClientConfig } from "../setup/aws";

/** A stage's event plumbing on moto_server: bucket -> default event bus -> rule -> SQS queue. */
export interface S3EventQueue {
  s3: S3Client;
  sqs: SQSClient;
  bucket: string;
  queueUrl: string;
  /** Removes the rule, its target and the queue (the bucket stays until moto_server stops). */
  remove(): Promise<void>;
}

/**
 * Creates, on the moto_server of this test run, what a deployed stage has between an upload and
 * its workflow: a versioned bucket `voxtrail-it-<random>` with EventBridge notifications, and on
 * the default bus a rule with a workflow's pattern (`voicemailRulePattern` unless `rulePattern`
 * says otherwise) whose target is an SQS queue, so every event the rule matches can be read back.
 */
export async function createS3EventQueue(
  rulePattern: (bucket: string) => EventPattern = voicemailRulePattern,
): Promise<S3EventQueue> {
  const config = motoClientConfig();
  const s3 = new S3Client(config);
  const sqs = new SQSClient(config);
  const events = new EventBridgeClient(config);
  const id = randomUUID().slice(0, 8);
  const bucket = `voxtrail-it-${id}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: "Enabled" } }),
  );
  await s3.send(
    new PutBucketNotificationConfigurationCommand({
      Bucket: bucket,
      NotificationConfiguration: { EventBridgeConfiguration: {} },
    }),
  );
  const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `voxtrail-it-${id}` }));
  if (!queueUrl) throw new Error("moto created a queue without a URL");
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }),
  );
  const rule = `voxtrail-it-${id}`;
  await events.send(new PutRuleCommand({ Name: rule, EventPattern: JSON.stringify(rulePattern(bucket)) }));
  await events.send(
    new PutTargetsCommand({ Rule: rule, Targets: [{ Id: "queue", Arn: Attributes?.QueueArn }] }),
  );
  return {
    s3,
    sqs,
    bucket,
    queueUrl,
    async remove() {
      await events.send(new RemoveTargetsCommand({ Rule: rule, Ids: ["queue"] }));
      await events.send(new DeleteRuleCommand({ Name: rule }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    },
  };
}
