import { DataZoneClient, PostLineageEventCommand } from "@aws-sdk/client-datazone";
import { mapLimit } from "@voxtrail/core";
import type { OpenLineageRunEvent } from "./openlineage";

/** What a DataZone export sent. */
export interface DataZoneExport {
  domainId: string;
  /** Events accepted, with DataZone's id for each. */
  posted: Array<{ clientToken: string; id?: string }>;
}

/**
 * The idempotency token of an event: its run id and event type, so exporting the same records
 * twice posts each event under the same token and DataZone keeps one copy.
 */
export function clientTokenOf(event: OpenLineageRunEvent): string {
  return `${event.run.runId}-${event.eventType}`;
}

/**
 * Posts run events to an Amazon DataZone domain with `PostLineageEvent`, each with its
 * idempotency token as `clientToken`. The default client takes the standard AWS configuration
 * (region, credentials, `AWS_ENDPOINT_URL_DATAZONE`).
 *
 * @example
 * await postToDataZone("dzd_1234567890abcd", openLineageEvents(graph, { bucket }));
 */
export async function postToDataZone(
  domainId: string,
  events: Iterable<OpenLineageRunEvent>,
  options: { client?: DataZoneClient; concurrency?: number } = {},
): Promise<DataZoneExport> {
  const client = options.client ?? new DataZoneClient({});
  // Runs go out in parallel; within a run, START is accepted before COMPLETE or FAIL is sent.
  const runs = new Map<string, OpenLineageRunEvent[]>();
  for (const event of events) {
    const run = runs.get(event.run.runId);
    if (run) run.push(event);
    else runs.set(event.run.runId, [event]);
  }
  const perRun = await mapLimit([...runs.values()], options.concurrency ?? 4, async (runEvents) => {
    const sent: DataZoneExport["posted"] = [];
    for (const event of runEvents) {
      const clientToken = clientTokenOf(event);
      const output = await client.send(
        new PostLineageEventCommand({
          domainIdentifier: domainId,
          event: new TextEncoder().encode(JSON.stringify(event)),
          clientToken,
        }),
      );
      sent.push({ clientToken, ...(output.id ? { id: output.id } : {}) });
    }
    return sent;
  });
  const posted = perRun.flat();
  return { domainId, posted };
}
