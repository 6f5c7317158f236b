import { randomUUID } from "node:crypto";
import { EVENT_SOURCE, type EventPublisher, type ObjectStore, type OutcomeDetail } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { LOCAL_ORIGIN } from "./object-created-event";

/**
 * The local stand-in for an event bus: keeps each outcome event, in EventBridge's envelope, in the
 * store under `events/<jobId>/`.
 */
export class StoreEventPublisher implements EventPublisher {
  constructor(private readonly store: ObjectStore) {}

  async publish(detailType: string, detail: OutcomeDetail): Promise<string> {
    const id = randomUUID();
    const event = {
      version: "0",
      id,
      "detail-type": detailType,
      source: EVENT_SOURCE,
      account: LOCAL_ORIGIN.account,
      time: new Date().toISOString(),
      region: LOCAL_ORIGIN.region,
      resources: [detail.report.uri],
      detail,
    };
    await this.store.put(keys.event(detail.jobId, id), `${JSON.stringify(event, null, 2)}\n`, {
      contentType: "application/json",
    });
    return id;
  }
}
