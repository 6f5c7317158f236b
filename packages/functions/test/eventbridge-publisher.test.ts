import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
} from "@aws-sdk/client-eventbridge";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { EVENT_SOURCE, type OutcomeDetail } from "@voxtrail/core";
import { beforeAll, describe, expect, it } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { EventBridgePublisher } from "../src/events/eventbridge-publisher";

describe("EventBridgePublisher against moto_server", () => {
  const busName = `voxtrail-test-${Date.now()}`;
  let events: EventBridgeClient;
  let sqs: SQSClient;
  let queueUrl: string;

  beforeAll(async () => {
    const config = motoClientConfig();
    events = new EventBridgeClient(config);
    sqs = new SQSClient(config);
    await events.send(new CreateEventBusCommand({ Name: busName }));
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: busName }))).QueueUrl as string;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }),
    );
    await events.send(
      new PutRuleCommand({
        Name: "outcomes",
        EventBusName: busName,
        EventPattern: JSON.stringify({ source: [EVENT_SOURCE] }),
      }),
    );
    await events.send(
      new PutTargetsCommand({
        Rule: "outcomes",
        EventBusName: busName,
        Targets: [{ Id: "queue", Arn: Attributes?.QueueArn }],
      }),
    );
  });

  it("puts the outcome event on the bus, where a rule on source voxtrail delivers it", async () => {
    const detail: OutcomeDetail = {
      jobId: "vm-123",
      outcome: "failed",
      report: { uri: "s3://bucket/reports/vm-123.json", sha256: "a".repeat(64) },
      failedStage: "Ingest",
      errorName: "InvalidAudio",
    };
    const id = await new EventBridgePublisher({ client: events, busName }).publish(
      "Voicemail Job Failed",
      detail,
    );
    expect(id).toBeTruthy();
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 2 }),
    );
    const delivered = JSON.parse(Messages?.[0]?.Body ?? "{}");
    expect(delivered).toMatchObject({ source: "voxtrail", "detail-type": "Voicemail Job Failed", detail });
  });

  it("fails with EventPublishFailed, naming the bus, when the bus does not exist", async () => {
    const publisher = new EventBridgePublisher({ client: events, busName: "no-such-bus" });
    const detail: OutcomeDetail = {
      jobId: "vm-1",
      outcome: "succeeded",
      report: { uri: "s3://b/r", sha256: "b".repeat(64) },
    };
    await expect(publisher.publish("Voicemail Job Succeeded", detail)).rejects.toMatchObject({
      name: expect.any(String),
    });
  });
});
