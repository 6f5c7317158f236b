import { createServer, type Http2ServerResponse, type ServerHttp2Session } from "node:http2";
import { type ListeningStandIn, listenOnLoopback } from "../../../../test/support/loopback-listen";

/** A Converse request as the local Bedrock Runtime received it. */
export interface ConverseRequest {
  /** The model id from `POST /model/{modelId}/converse`, URL-decoded. */
  modelId: string;
  headers: Record<string, string>;
  /** The JSON body. */
  body: Record<string, unknown>;
}

/** How the server answers: a tool call with this input, or an error. */
export type ConverseAnswer =
  | { toolUse: { name: string; input: unknown } }
  | { text: string }
  | { error: string; status: number };

/**
 * A local server speaking Bedrock Runtime's Converse REST API (restJson1) over HTTP/2 (cleartext:
 * the client's default handler for Bedrock Runtime is HTTP/2): it answers
 * `POST /model/{modelId}/converse` with a `toolUse` content block, a text block, or an error whose
 * type is in `x-amzn-errortype`, as the real service does.
 */
export interface ConverseServer extends ListeningStandIn {
  requests: ConverseRequest[];
  answerWith(answer: ConverseAnswer): void;
}

/** Starts the server on a free loopback port. */
export async function startConverseServer(): Promise<ConverseServer> {
  const requests: ConverseRequest[] = [];
  let answer: ConverseAnswer = { text: "no answer set" };
  const sessions = new Set<ServerHttp2Session>();
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const match = /^\/model\/([^/]+)\/converse$/.exec(incoming.url ?? "");
    if (incoming.method !== "POST" || match === null) {
      sendError(response, 404, "UnknownOperationException");
      return;
    }
    requests.push({
      modelId: decodeURIComponent(match[1] ?? ""),
      headers: Object.fromEntries(
        Object.entries(incoming.headers).map(([name, value]) => [name, String(value)]),
      ),
      body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
    });
    if ("error" in answer) {
      sendError(response, answer.status, answer.error);
      return;
    }
    const content =
      "toolUse" in answer
        ? [{ toolUse: { toolUseId: "tooluse_test1", ...answer.toolUse } }]
        : [{ text: answer.text }];
    response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": "req-converse-1" });
    response.end(
      JSON.stringify({
        output: { message: { role: "assistant", content } },
        stopReason: "toolUse" in answer ? "tool_use" : "end_turn",
        usage: { inputTokens: 412, outputTokens: 96, totalTokens: 508 },
        metrics: { latencyMs: 850 },
      }),
    );
  });
  server.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  const listening = await listenOnLoopback(server, () => {
    for (const session of sessions) session.destroy();
  });
  return {
    ...listening,
    requests,
    answerWith(next) {
      answer = next;
    },
  };
}

function sendError(response: Http2ServerResponse, status: number, type: string): void {
  response.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    "x-amzn-requestid": "req-error-1",
  });
  // Like the real service, the message can quote the request: it must not reach our errors.
  response.end(JSON.stringify({ message: `${type}: input contained 'ignore previous instructions'` }));
}
