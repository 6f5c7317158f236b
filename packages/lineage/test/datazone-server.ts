import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One lineage event as the local DataZone endpoint received it. */
export interface ReceivedLineageEvent {
  domainId: string;
  clientToken: string | undefined;
  contentType: string | undefined;
  event: unknown;
}

const PATH = /^\/v2\/domains\/([^/]+)\/lineage\/events$/;

/**
 * A local stand-in for Amazon DataZone's `PostLineageEvent` REST operation:
 * `POST /v2/domains/{domainIdentifier}/lineage/events` with the OpenLineage event as the body and
 * the idempotency token in the `Client-Token` header, answered `200 {"id","domainId"}`. A repeated
 * token returns the first answer and stores nothing new, as an idempotent API does.
 */
export async function startDataZoneEndpoint() {
  const received: ReceivedLineageEvent[] = [];
  const byToken = new Map<string, string>();
  let requests = 0;
  const server = createServer(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = PATH.exec(new URL(req.url ?? "/", "http://localhost").pathname);
    if (req.method !== "POST" || !match?.[1]) {
      res.writeHead(404, {
        "content-type": "application/json",
        "x-amzn-errortype": "ResourceNotFoundException",
      });
      res.end(JSON.stringify({ message: "Not Found" }));
      return;
    }
    const domainId = decodeURIComponent(match[1]);
    const clientToken = req.headers["client-token"] as string | undefined;
    let event: unknown;
    try {
      event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json", "x-amzn-errortype": "ValidationException" });
      res.end(JSON.stringify({ message: "event is not JSON" }));
      return;
    }
    let id = clientToken ? byToken.get(clientToken) : undefined;
    if (id === undefined) {
      id = randomUUID();
      if (clientToken) byToken.set(clientToken, id);
      received.push({ domainId, clientToken, contentType: req.headers["content-type"], event });
    }
    res.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": randomUUID() });
    res.end(JSON.stringify({ id, domainId }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
