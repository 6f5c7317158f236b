import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/**
 * One `PayloadPart` event of SageMaker's `ResponseStream`, framed as the AWS event stream encoding
 * (`application/vnd.amazon.eventstream`). The SDK binds `PayloadPart.Bytes` to the whole frame body
 * (`eventPayload` trait), so the body is the raw bytes, not a JSON document.
 */
export function payloadPartFrame(bytes: Uint8Array): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: "PayloadPart" },
      ":message-type": { type: "string", value: "event" },
      ":content-type": { type: "string", value: "application/octet-stream" },
    },
    body: bytes,
  });
}

/**
 * An exception message of SageMaker's `ResponseStream` (`ModelStreamError`, `InternalStreamFailure`):
 * the SDK throws it from the stream as an error of that name, with the body's fields.
 */
export function exceptionFrame(type: string, body: { Message: string; ErrorCode?: string }): Uint8Array {
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: "exception" },
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify(body)),
  });
}

/** Splits `bytes` into consecutive slices of at most `maxBytes` each (one slice when it fits). */
export function splitBytes(bytes: Uint8Array, maxBytes: number): Uint8Array[] {
  if (bytes.byteLength <= maxBytes) return [bytes];
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += maxBytes) {
    parts.push(bytes.subarray(offset, offset + maxBytes));
  }
  return parts;
}
