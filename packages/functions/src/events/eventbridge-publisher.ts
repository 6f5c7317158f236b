import { type EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { EVENT_SOURCE, type EventPublisher, EventPublishFailed, type OutcomeDetail } from "@voxtrail/core";

/**
 * Publishes outcome events to an EventBridge bus with PutEvents (source `voxtrail`).
 *
 * @example
 * const events = new EventBridgePublisher({ client: new EventBridgeClient({}), busName: "voxtrail-dev" });
 * await events.publish("Voicemail Job Succeeded", detail);
 */
export class EventBridgePublisher implements EventPublisher {
  constructor(private readonly options: { client: EventBridgeClient; busName: string }) {}

  async publish(detailType: string, detail: OutcomeDetail): Promise<string> {
    const response = await this.options.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.options.busName,
            Source: EVENT_SOURCE,
            DetailType: detailType,
            Detail: JSON.stringify(detail),
            Resources: [detail.report.uri],
          },
        ],
      }),
    );
    const [entry] = response.Entries ?? [];
    if (response.FailedEntryCount || !entry?.EventId) {
      throw new EventPublishFailed(
        `event bus ${this.options.busName} refused the event: ${entry?.ErrorCode ?? "no id"}`,
      );
    }
    return entry.EventId;
  }
}
