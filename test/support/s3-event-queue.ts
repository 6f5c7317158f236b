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
import { s3EventKey } from "@voxtrail/local";
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

/**
 * moto's "Object Created" event as S3 sends it. moto 5.2.1 deviates from S3 here: its EventBridge
 * event carries the object key raw (moto/s3/notifications.py, `_send_event_bridge_message`:
 * `"key": key.name`), with `reason` (`ObjectCreated`), where S3 form-encodes the key as it
 * documents for its notifications ("red flower.jpg" is "red+flower.jpg"), and our consumers decode
 * a key of an event with `reason` (`objectKeyOf`, docs/architecture.md, "Object keys in S3
 * events"). So the key is re-encoded as S3 would (`s3EventKey`) before our code reads the event;
 * test/integration/s3-eventbridge-sqs.test.ts checks that moto still sends it raw. Anything that
 * is not such an event is returned as it is.
 *
 * @example
 * asS3Sends(motoEvent).detail.object.key; // "incoming/voicemail/a+b%2Bc%25.wav" for "a b+c%.wav"
 */
export function asS3Sends<E>(event: E): E {
  const detail = (event as { detail?: { object?: { key?: unknown } } } | null)?.detail;
  const key = detail?.object?.key;
  if (typeof key !== "string") return event;
  return { ...event, detail: { ...detail, object: { ...detail?.object, key: s3EventKey(key) } } };
}
