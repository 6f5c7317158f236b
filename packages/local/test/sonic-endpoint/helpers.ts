import {
  InvokeEndpointWithResponseStreamCommand,
  type InvokeEndpointWithResponseStreamCommandOutput,
  SageMakerRuntimeClient,
} from "@aws-sdk/client-sagemaker-runtime";
import { decodeMono16, encodeSamples, resample } from "@voxtrail/audio";
import type { AudioEncoding, Processor } from "@voxtrail/core";
import type { FliteEngine, FliteVoice } from "../../src/flite/flite-engine";
import { splitSentences } from "../../src/sonic-endpoint/sentences";

/** A real SageMaker Runtime client pointed at a local server. */
export function localClient(url: string): SageMakerRuntimeClient {
  return new SageMakerRuntimeClient({
    endpoint: url,
    region: "us-east-1",
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
    maxAttempts: 1,
  });
}

/** A valid Sonic request body, with fields replaced by `overrides`. */
export function sonicBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    context_id: "ctx-1",
    transcript: "Thanks for calling. We will ring you back tomorrow morning.",
    language: "en",
    output_format: { container: "raw", encoding: "pcm_s16le", sample_rate: 16000 },
    voice: { mode: "id", id: "bf0a246a-8642-498a-9950-80c35e9276b5" },
    ...overrides,
  };
}

/** Sends a body (bytes as they are, anything else as JSON) straight through the SDK. */
export function invoke(
  client: SageMakerRuntimeClient,
  body: unknown,
): Promise<InvokeEndpointWithResponseStreamCommandOutput> {
  return client.send(
    new InvokeEndpointWithResponseStreamCommand({
      EndpointName: "sonic-local",
      ContentType: "application/json",
      Accept: "text/event-stream",
      Body: body instanceof Uint8Array ? body : new TextEncoder().encode(JSON.stringify(body)),
    }),
  );
}

/** Every `PayloadPart.Bytes` of a response, in order. */
export async function payloadParts(
  response: InvokeEndpointWithResponseStreamCommandOutput,
): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  for await (const event of response.Body ?? []) {
    if (event.PayloadPart?.Bytes) parts.push(event.PayloadPart.Bytes);
  }
  return parts;
}

/** The JSON events carried by payload parts: their bytes joined, split at newlines. */
export function eventsOf(parts: Uint8Array[]): Record<string, unknown>[] {
  const text = Buffer.concat(parts).toString("utf8");
  if (!text.endsWith("\n")) throw new Error("the last event is not newline-terminated");
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** The audio of the `chunk` events, joined. */
export function audioOf(events: Record<string, unknown>[]): Buffer {
  return Buffer.concat(
    events
      .filter((event) => event.type === "chunk")
      .map((event) => Buffer.from(String(event.data), "base64")),
  );
}

/** A processor description for tests. */
export const TEST_PROCESSOR: Processor = {
  provider: "sonic-sagemaker",
  model: "flite-behind-sonic",
  version: "test",
  endpoint: "sonic-local",
  boundary: { kind: "local" },
};

/** flite's own 16 kHz samples for each sentence of `text`, rendered one sentence at a time. */
export async function fliteSentences(
  engine: FliteEngine,
  text: string,
  voice: FliteVoice,
): Promise<Int16Array[]> {
  const sentences: Int16Array[] = [];
  for (const sentence of splitSentences(text)) {
    sentences.push(decodeMono16(await engine.synthesizeWav(sentence, voice)).samples);
  }
  return sentences;
}

/**
 * The audio the endpoint should send for sentences rendered by {@link fliteSentences}: each
 * resampled and encoded on its own, then joined.
 */
export function sentencesAudio(sentences: Int16Array[], encoding: AudioEncoding, sampleRate: number): Buffer {
  return Buffer.concat(
    sentences.map((samples) => encodeSamples(resample(samples, 16000, sampleRate), encoding)),
  );
}
