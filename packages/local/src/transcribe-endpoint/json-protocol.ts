import type { IncomingMessage, ServerResponse } from "node:http";

/** A request of the AWS JSON 1.1 protocol: the operation (`X-Amz-Target`) and its JSON body. */
export interface JsonRequest {
  operation: string;
  body: Record<string, unknown>;
}

/** An error as AWS JSON 1.1 services answer it: HTTP status, `__type` and `Message`. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a JSON 1.1 request: `POST /`, `X-Amz-Target: <Service>.<Operation>`, a JSON object body.
 * Anything else is a `ServiceError` the way the service would refuse it.
 *
 * @example
 * const { operation, body } = await readJsonRequest(req, "Transcribe");
 */
export async function readJsonRequest(req: IncomingMessage, service: string): Promise<JsonRequest> {
  const target = String(req.headers["x-amz-target"] ?? "");
  if (req.method !== "POST" || !target.startsWith(`${service}.`)) {
    throw new ServiceError(
      400,
      "UnknownOperationException",
      "the request names no operation of this service",
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new ServiceError(400, "SerializationException", "the request body is not JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ServiceError(400, "SerializationException", "the request body is not a JSON object");
  }
  return { operation: target.slice(service.length + 1), body: body as Record<string, unknown> };
}

/**
 * Answers with `value` as JSON 1.1, or with an error's `__type` and `Message`.
 *
 * @example
 * answer(res, 200, { TranscriptionJob: job });
 */
export function answer(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/x-amz-json-1.1",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}
