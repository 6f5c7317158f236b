import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type ListeningStandIn, listenOnLoopback } from "../../../../test/support/loopback-listen";

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
export interface CartesiaApiServer extends ListeningStandIn {
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
  const listening = await listenOnLoopback(server, () => server.closeAllConnections());
  return {
    ...listening,
    requests,
    respondWith(next) {
      responder = next;
    },
  };
}

/**
 * The calling test file's server: started before its tests, closed after them, and before each
 * test cleared of requests and set to answer as `responder()` says. Call it at the top of the file;
 * the returned function gives the server once it runs.
 *
 * @example
 * const server = cartesiaApiServerForFile(() => (_request, response) => sendJson(response, 200, {}));
 * it("...", () => new CartesiaInkTranscriber({ apiKey, baseURL: server().url }));
 */
export function cartesiaApiServerForFile(responder: () => Responder): () => CartesiaApiServer {
  let server: CartesiaApiServer | undefined;
  beforeAll(async () => {
    server = await startCartesiaApiServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    server?.requests.splice(0);
    server?.respondWith(responder());
  });
  return () => {
    if (server === undefined) throw new Error("the Cartesia API server runs only while the file's tests run");
    return server;
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

/** Opens an SSE response (status 200, `text/event-stream`). */
export function openSse(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.flushHeaders();
}

/** Writes one server-sent event named after its `type`. */
export function writeSse(response: ServerResponse, event: { type: string } & Record<string, unknown>): void {
  response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

/** Cartesia's `chunk` event for some audio bytes. */
export function chunkEvent(audio: Uint8Array): { type: string } & Record<string, unknown> {
  return {
    type: "chunk",
    data: Buffer.from(audio).toString("base64"),
    done: false,
    status_code: 206,
    step_time: 1,
  };
}

/** Cartesia's `done` event. */
export const DONE_EVENT = { type: "done", done: true, status_code: 200 };

/** Cartesia's `error` event with a status code. */
export function errorEvent(statusCode: number): { type: string } & Record<string, unknown> {
  return {
    type: "error",
    done: true,
    status_code: statusCode,
    title: "Error",
    message: "the server quotes the transcript here: Thanks for calling",
    request_id: "req-test",
  };
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
