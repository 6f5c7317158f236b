import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import {
  SynthesisFailed,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
  type VoxtrailError,
} from "@voxtrail/core";
import { SonicSageMakerSynthesizer, type SonicSynthesisStream } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { payloadPartFrame } from "../../src/sonic-endpoint/event-stream-frames";
import { localClient, TEST_PROCESSOR } from "./helpers";

// Failures the local endpoint never produces, served by a scripted server in SageMaker's wire
// format, and read by the synthesizer through the real SageMaker Runtime client.

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const TEXT = "Please call me back about order 1234.";
const CHUNK = `${JSON.stringify({ type: "chunk", data: Buffer.alloc(320).toString("base64"), done: false })}\n`;

type Script = (res: ServerResponse, req: IncomingMessage) => void;
let script: Script;
let server: Server;
let client: ReturnType<typeof localClient>;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => script(res, req));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = localClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  client.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function startStream(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
}

function exceptionFrame(type: string, body: object): Uint8Array {
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: "exception" },
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify(body)),
  });
}

function errorResponse(status: number, type: string, body: object): Script {
  return (res) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "x-amzn-errortype": type,
      "x-amzn-requestid": "req-1",
    });
    res.end(JSON.stringify(body));
  };
}

function synthesize(): SonicSynthesisStream {
  const synthesizer = new SonicSageMakerSynthesizer({
    client,
    endpointName: "sonic",
    voiceId: "voice",
    processor: TEST_PROCESSOR,
  });
  return synthesizer.synthesize({
    text: TEXT,
    language: "en",
    format: { encoding: "pcm_s16le", sampleRate: 8000, channels: 1 },
  });
}

/** Runs a synthesis against the scripted server and returns what it threw, with the audio bytes seen. */
async function failure(): Promise<{ error: VoxtrailError; audioBytes: number }> {
  let audioBytes = 0;
  try {
    for await (const chunk of synthesize()) audioBytes += chunk.byteLength;
  } catch (error) {
    expect((error as Error).message).not.toContain(TEXT);
    return { error: error as VoxtrailError, audioBytes };
  }
  throw new Error("the synthesis did not fail");
}

describe("SonicSageMakerSynthesizer failure mapping, through the real SDK", () => {
  test("ModelStreamError after audio began is SynthesisStreamInterrupted", async () => {
    script = (res) => {
      startStream(res);
      res.write(payloadPartFrame(fromUtf8(CHUNK)));
      res.end(
        exceptionFrame("ModelStreamError", { Message: `failed on: ${TEXT}`, ErrorCode: "StreamBroken" }),
      );
    };
    const { error, audioBytes } = await failure();
    expect(audioBytes).toBe(320);
    expect(error).toBeInstanceOf(SynthesisStreamInterrupted);
    expect(error.message).toContain("ModelStreamError (StreamBroken)");
  });

  test("InternalStreamFailure is SynthesisStreamInterrupted", async () => {
    script = (res) => {
      startStream(res);
      res.end(exceptionFrame("InternalStreamFailure", { Message: "internal" }));
    };
    expect((await failure()).error).toBeInstanceOf(SynthesisStreamInterrupted);
  });

  test("a stream that ends without Sonic's done event is SynthesisStreamInterrupted", async () => {
    script = (res) => {
      startStream(res);
      res.write(payloadPartFrame(fromUtf8(CHUNK)));
      res.end(payloadPartFrame(fromUtf8(CHUNK.slice(0, 20))));
    };
    const { error, audioBytes } = await failure();
    expect(audioBytes).toBe(320);
    expect(error).toBeInstanceOf(SynthesisStreamInterrupted);
    expect(error.message).toBe("Sonic response stream ended before its done event, inside an event");
  });

  test("a connection reset after audio began is SynthesisStreamInterrupted", async () => {
    script = (res) => {
      startStream(res);
      res.write(payloadPartFrame(fromUtf8(CHUNK)), () => setTimeout(() => res.socket?.resetAndDestroy(), 50));
    };
    const { error, audioBytes } = await failure();
    expect(audioBytes).toBe(320);
    expect(error).toBeInstanceOf(SynthesisStreamInterrupted);
    expect(error.message).toBe("SageMaker Error (ECONNRESET)");
  });

  test("a connection reset after Sonic's done event does not fail the synthesis", async () => {
    script = (res) => {
      startStream(res);
      const done = `${JSON.stringify({ type: "done", done: true })}\n`;
      res.write(payloadPartFrame(fromUtf8(CHUNK + done)), () =>
        setTimeout(() => res.socket?.resetAndDestroy(), 50),
      );
    };
    const stream = synthesize();
    let audioBytes = 0;
    for await (const chunk of stream) audioBytes += chunk.byteLength;
    expect(audioBytes).toBe(320);
    expect(stream.timings().map((timing) => timing.name)).toEqual([
      "synthesize.ttfb",
      "synthesize.total",
      "synthesize.clientSetup",
      "synthesize.wireTtfb",
    ]);
  });

  test.each([
    ["ModelError with original status 429", errorResponse(424, "ModelError", { OriginalStatusCode: 429 })],
    ["ModelNotReadyException", errorResponse(429, "ModelNotReadyException", { Message: "not ready" })],
    ["ServiceUnavailable", errorResponse(503, "ServiceUnavailable", { Message: "unavailable" })],
  ])("%s is SynthesisThrottled", async (_, response) => {
    script = response;
    const { error } = await failure();
    expect(error).toBeInstanceOf(SynthesisThrottled);
    expect(error.retryable).toBe(true);
  });

  test("ModelError with original status 500 is SynthesisFailed", async () => {
    script = errorResponse(424, "ModelError", { OriginalStatusCode: 500, OriginalMessage: TEXT });
    const { error } = await failure();
    expect(error).toBeInstanceOf(SynthesisFailed);
    expect(error.message).toBe("SageMaker ModelError: original status 500, request id req-1");
  });
});
