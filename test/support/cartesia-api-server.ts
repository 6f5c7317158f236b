import type { ServerResponse } from "node:http";
import {
  type CartesiaApiServer,
  type Responder,
  startCartesiaApiServer,
} from "@voxtrail/operator/cartesia-api-server";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** The server itself, for tests that start their own or answer with JSON. */
export {
  type CartesiaApiServer,
  type Responder,
  sendJson,
  startCartesiaApiServer,
} from "@voxtrail/operator/cartesia-api-server";

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
