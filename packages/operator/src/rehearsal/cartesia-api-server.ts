import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local server that speaks Cartesia's REST and SSE wire formats (multipart `POST /stt`, JSON
 * `POST /tts/sse`) and answers as its user tells it: the rehearsal's Cartesia Ink stand-in and the
 * Cartesia providers' tests run the real @cartesia/cartesia-js client against it.
 */

/** A request as the local Cartesia API received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body, as text (multipart or JSON). */
  body: string;
  /** Multipart fields (`POST /stt`): every text field's values, and the uploaded file. */
  fields: Record<string, string[]>;
  file: { name: string; type: string; bytes: Uint8Array } | undefined;
  /** The JSON body (`POST /tts/sse`). */
  json: unknown;
}

/** Answers one request. */
export type Responder = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

/** A local server speaking Cartesia's REST and SSE wire formats, answering as its test tells it to. */
export interface CartesiaApiServer {
  /** Its base URL on loopback. */
  url: string;
  /** Drops the open connections, then closes the server. */
  close(): Promise<void>;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** Sets how the next requests are answered. */
  respondWith(responder: Responder): void;
}

/** Starts the server on a free loopback port. Until told otherwise it answers 404. */
export async function startCartesiaApiServer(): Promise<CartesiaApiServer> {
  const requests: ReceivedRequest[] = [];
  let responder: Responder = (_request, response) => sendJson(response, 404, { message: "not found" });
  const server = createServer((incoming, response) => {
    receive(incoming)
      .then(async (request) => {
        requests.push(request);
        await responder(request, response);
      })
      .catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { message: String(error) });
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    requests,
    respondWith(next) {
      responder = next;
    },
  };
}

async function receive(incoming: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const headers = Object.fromEntries(
    Object.entries(incoming.headers).map(([name, value]) => [name, String(value)]),
  );
  const url = new URL(incoming.url ?? "/", "http://local");
  const request: ReceivedRequest = {
    method: incoming.method ?? "",
    path: url.pathname,
    headers,
    body: raw.toString("utf8"),
    fields: {},
    file: undefined,
    json: undefined,
  };
  const contentType = headers["content-type"] ?? "";
  if (contentType.startsWith("multipart/form-data")) {
    const form = await new Request(url, {
      method: "POST",
      headers: { "content-type": contentType },
      body: raw,
    }).formData();
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") {
        request.fields[name] = [...(request.fields[name] ?? []), value];
      } else {
        request.file = {
          name: value.name,
          type: value.type,
          bytes: new Uint8Array(await value.arrayBuffer()),
        };
      }
    }
  } else if (contentType.startsWith("application/json")) {
    request.json = JSON.parse(request.body);
  }
  return request;
}

/** Answers with a JSON body and status. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
