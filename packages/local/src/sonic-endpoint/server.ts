import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BYTES_PER_SAMPLE } from "@voxtrail/audio";
import { spanishSpeech } from "../espeak/spanish-speech";
import { FLITE_VOICES, FliteEngine, type FliteVoice } from "../flite/flite-engine";
import { exceptionFrame, payloadPartFrame, splitBytes } from "./event-stream-frames";
import {
  afterChunk,
  checkFaults,
  FIRST_CHUNK_OPENING,
  hits,
  type SonicEndpointFaults,
  untilFirstAudio,
} from "./faults";
import { checkGenerationTime, GenerationPace, type GenerationTime } from "./generation-pace";
import { sentenceAudio } from "./sentence-audio";
import { type SonicCapacity, type SonicCapacityUse, SonicFleet } from "./sonic-fleet";
import { checkSonicRequest, type SonicRequest } from "./sonic-request";

export type { SonicEndpointFaults } from "./faults";
export type { GenerationTime } from "./generation-pace";
export type { SonicAutoscaling, SonicCapacity, SonicCapacityUse } from "./sonic-fleet";

/** Options for {@link startSonicEndpoint}. */
export interface SonicEndpointOptions {
  /**
   * The flite engine to speak with; one is created when omitted. Anything that makes a WAV of a
   * sentence will do (a load rehearsal's simulated engine makes silence).
   */
  engine?: SpeechEngine;
  /** What speaks Spanish (`language: "es"`): espeak-ng's Latin American voice by default ({@link spanishSpeech}). */
  spanishEngine?: SpeechEngine;
  /** Interface to listen on; `127.0.0.1` by default. */
  host?: string;
  /** Port to listen on; `0` (any free port) by default. */
  port?: number;
  /** Audio per `chunk` event, in milliseconds; 20 by default (Sonic sends at most 20 ms per chunk). */
  chunkMs?: number;
  /**
   * Largest `PayloadPart` body, in bytes. Each batch of events (one `chunk`; then `timestamps` and
   * `done` together) goes out as one part when it fits, else split into parts of at most this size,
   * cutting events (and UTF-8 characters) anywhere, as SageMaker may. Unlimited by default.
   */
  maxPartBytes?: number;
  /** Delays and failures to inject (see {@link SonicEndpointFaults}): none by default. */
  faults?: SonicEndpointFaults;
  /** Called as each request arrives, before it is read: lets a test count what reached the endpoint. */
  onRequest?: (request: { method: string; path: string }) => void;
  /**
   * Called as the first audio of each stream is written to the connection (with a
   * `firstByteDelayMs`, once it is over): lets a test see when the endpoint's first audio actually
   * went out, on a loaded machine later than it was due.
   */
  onFirstAudio?: () => void;
  /**
   * Instances and generations per instance, fixed or autoscaled ({@link SonicCapacity}); beyond
   * them an invocation is refused before its stream, as the container's 429 reaches the caller
   * through SageMaker. Unlimited by default.
   */
  capacity?: SonicCapacity;
  /** Time taken per second of audio produced ({@link GenerationTime}); as fast as flite goes by default. */
  generationTime?: GenerationTime;
}

/** What the endpoint speaks with: flite, or a stand-in that makes a WAV of a sentence. */
export type SpeechEngine = Pick<FliteEngine, "synthesizeWav">;

/** A running local endpoint. */
export interface SonicEndpoint {
  /** Base URL to give a SageMaker Runtime client as its `endpoint`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** The endpoint {@link startSonicEndpoint} runs: a {@link SonicEndpoint} that also reports its capacity's use. */
export interface StartedSonicEndpoint extends SonicEndpoint {
  /** Peak invocations in flight against capacity, refusals for want of it, and instances over time. */
  capacityUse(): SonicCapacityUse;
  /**
   * The HTTP server behind `url`: a load rehearsal hands it in-memory connections
   * (`server.emit("connection", socket)`) so its requests need no TCP.
   */
  httpServer: Server;
}

/** SageMaker's request body limit for real-time invocations. */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

const INVOCATION_PATH = /^\/endpoints\/[^/]+\/invocations-response-stream$/;

/**
 * Starts a local stand-in for a Cartesia Sonic SageMaker endpoint: CMU flite behind Sonic's wire
 * format, not Sonic. It answers `POST /endpoints/<name>/invocations-response-stream` as SageMaker
 * Runtime's `InvokeEndpointWithResponseStream` does, so the real `@aws-sdk/client-sagemaker-runtime`
 * client, given `endpoint: url`, decodes its answers:
 *
 * - a valid Sonic body gets `200` with `content-type: application/vnd.amazon.eventstream` and
 *   `PayloadPart` frames carrying newline-terminated JSON events: `chunk` (base64 audio in the
 *   requested raw encoding and rate), `timestamps` when `add_timestamps` is set, then `done`;
 * - an invalid body gets what SageMaker relays when the model container answers 422: HTTP 424,
 *   `x-amzn-errortype: ModelError`, `OriginalStatusCode: 422` (the SDK throws `ModelError`);
 * - an invocation beyond `capacity` gets the same with `OriginalStatusCode: 429`, the container's
 *   "too many requests" as SageMaker relays it (`ModelError`: "Model (owned by the customer in the
 *   container) returned 4xx or 5xx error code",
 *   https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html);
 * - a synthesis failure after the stream began becomes a Sonic `error` event;
 * - other paths get 404.
 *
 * What differs from Sonic: the voice is flite's (`voice.id` naming a flite voice, `slt`, `rms`, `awb`
 * or `kal16`, selects it; any other id gets `slt`), or for `language: "es"` espeak-ng's Latin
 * American Spanish (whatever the voice id); any other `language` is refused (422), it
 * speaks one sentence at a time (the first sentence's audio goes out while the rest renders, each
 * sentence rendered and resampled on its own), and word timestamps are estimated.
 * Requests are neither authenticated nor signature-checked.
 *
 * @example
 * const endpoint = await startSonicEndpoint();
 * const client = new SageMakerRuntimeClient({
 *   endpoint: endpoint.url,
 *   region: "us-east-1",
 *   credentials: { accessKeyId: "x", secretAccessKey: "x" },
 * });
 * // ... InvokeEndpointWithResponseStreamCommand with a Sonic body ...
 * await endpoint.close();
 */
export async function startSonicEndpoint(options: SonicEndpointOptions = {}): Promise<StartedSonicEndpoint> {
  const config: StreamConfig = {
    engine: options.engine ?? new FliteEngine(),
    spanishEngine: options.spanishEngine ?? spanishSpeech(),
    chunkMs: options.chunkMs ?? 20,
    maxPartBytes: options.maxPartBytes ?? Number.POSITIVE_INFINITY,
    faults: options.faults ?? {},
    invocations: 0,
    fleet: new SonicFleet(options.capacity),
    generationTime: options.generationTime,
    onFirstAudio: options.onFirstAudio,
  };
  checkFaults(config.faults);
  checkGenerationTime(options.generationTime);
  if (!(config.chunkMs > 0)) throw new RangeError("chunkMs must be positive");
  const { maxPartBytes } = options;
  if (maxPartBytes !== undefined && !(Number.isInteger(maxPartBytes) && maxPartBytes >= 1)) {
    throw new RangeError("maxPartBytes must be a positive integer");
  }

  const server = createServer((req, res) => {
    const arrivedAt = performance.now();
    options.onRequest?.({
      method: req.method ?? "",
      path: new URL(req.url ?? "/", "http://localhost").pathname,
    });
    handle(req, res, config, arrivedAt).catch(() => {
      // An unexpected failure: answer 500 if the stream has not begun, else cut it.
      if (res.headersSent) res.destroy();
      else json(res, 500, { "x-amzn-errortype": "InternalFailure" }, { message: "Internal failure" });
    });
  });
  // An idle connection stays open as long as behind AWS's own endpoints (60 s and more), not
  // Node's 5 s: a client that picks a pooled socket as the server closes it gets ECONNRESET, a
  // race Node's default makes likely on a busy machine between one synthesis and the next.
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    capacityUse: () => config.fleet.use(),
    httpServer: server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        config.fleet.stop();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

interface StreamConfig {
  engine: SpeechEngine;
  spanishEngine: SpeechEngine;
  chunkMs: number;
  maxPartBytes: number;
  faults: SonicEndpointFaults;
  /** Invocations received so far, which decides whether a failure fault hits. */
  invocations: number;
  fleet: SonicFleet;
  generationTime: GenerationTime | undefined;
  onFirstAudio: (() => void) | undefined;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  config: StreamConfig,
  arrivedAt: number,
): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (req.method !== "POST" || !INVOCATION_PATH.test(path)) {
    req.resume();
    json(res, 404, {}, { message: "Not Found" });
    return;
  }
  const invocation = ++config.invocations;
  const body = await readBody(req);
  // The injected delays count from the request's arrival: its head and (small) body come together,
  // and reading the body takes turns of the event loop that a loaded machine lengthens.
  const receivedAt = arrivedAt;
  if (body === undefined) {
    // SageMaker refuses oversized payloads before they reach the model.
    const message = `Request payload exceeds ${MAX_REQUEST_BYTES} bytes`;
    json(res, 400, { "x-amzn-errortype": "ValidationError" }, { message });
    return;
  }
  const release = config.fleet.admit();
  if (release === undefined) {
    modelErrorResponse(res, 429, { error: "too many concurrent requests" });
    return;
  }
  res.on("close", release);
  const { modelError } = config.faults;
  if (modelError !== undefined && hits(modelError, invocation)) {
    modelErrorResponse(res, modelError.originalStatus, { error: "injected fault" });
    return;
  }
  const check = checkSonicRequest(body);
  if (!check.ok) {
    modelErrorResponse(res, 422, { error: "invalid request", details: check.problems });
    return;
  }

  res.writeHead(200, {
    "content-type": "application/vnd.amazon.eventstream",
    "x-amzn-invoked-production-variant": "AllTraffic",
    "x-amzn-requestid": randomUUID(),
  });
  res.flushHeaders();
  await streamSpeech(res, check.request, config, receivedAt, invocation);
  if (!res.destroyed) res.end();
}

/**
 * Synthesizes, converts and sends the events, one sentence at a time: the first sentence's audio
 * goes out while the next renders. Chunks are cut from the audio as one stream, so each carries
 * `chunkMs` of audio whatever the sentences' lengths, the last one less. A disconnected client
 * stops the sending.
 */
async function streamSpeech(
  res: ServerResponse,
  request: SonicRequest,
  config: StreamConfig,
  receivedAt: number,
  invocation: number,
): Promise<void> {
  const { contextId, encoding, sampleRate } = request;
  const { faults } = config;
  const breakAfter = hits(faults.streamError, invocation) ? faults.streamError?.afterChunk : undefined;
  const send = (events: object[]) =>
    sendEvents(res, events.map((event) => `${JSON.stringify(event)}\n`).join(""), config.maxPartBytes);

  // With a first-audio delay the stream begins now, with the opening bytes of the first chunk event.
  const openedEarly = faults.firstByteDelayMs !== undefined;
  if (openedEarly && !(await sendEvents(res, FIRST_CHUNK_OPENING, config.maxPartBytes))) return;

  let sent = 0;
  let stepStarted = performance.now();
  const pace = new GenerationPace(config.generationTime);
  let audioMsSent = 0;
  /** Sends one chunk event; resolves false once the stream is over (client gone, or a failure injected). */
  const sendChunk = async (audio: Uint8Array): Promise<boolean> => {
    if (sent > 0) await afterChunk(faults, sent);
    audioMsSent += (audio.byteLength / BYTES_PER_SAMPLE[encoding] / sampleRate) * 1000;
    await pace.until(audioMsSent);
    const now = performance.now();
    const chunk = {
      type: "chunk",
      data: Buffer.from(audio).toString("base64"),
      done: false,
      status_code: 200,
      // Seconds spent producing this chunk, as Sonic reports it; a sentence's first one includes flite's run.
      step_time: (now - stepStarted) / 1000,
      sampling_rate: sampleRate,
      context_id: contextId,
    };
    stepStarted = now;
    if (sent === 0 && openedEarly) {
      // The rest of the event opened early: its audio, once the delay is over (framed before it,
      // so that the audio goes out as the delay ends).
      const rest = `${JSON.stringify(chunk)}\n`.slice(FIRST_CHUNK_OPENING.length);
      const frames = eventFrames(rest, config.maxPartBytes);
      await untilFirstAudio(faults, receivedAt);
      if (sent === 0) config.onFirstAudio?.();
      if (!(await writeFrames(res, frames))) return false;
    } else {
      if (sent === 0) config.onFirstAudio?.();
      if (!(await send([chunk]))) return false;
    }
    sent += 1;
    if (sent !== breakAfter) return true;
    if (!res.destroyed) res.write(exceptionFrame("ModelStreamError", MODEL_STREAM_ERROR));
    return false;
  };

  const bytesPerChunk =
    Math.max(1, Math.round((sampleRate * config.chunkMs) / 1000)) * BYTES_PER_SAMPLE[encoding];
  const engine = request.language === "es" ? config.spanishEngine : config.engine;
  const sentences = sentenceAudio(engine, {
    transcript: request.transcript,
    voice: fliteVoice(request.voiceId),
    encoding,
    sampleRate,
  });
  /** Audio short of a whole chunk at the end of a sentence, sent with the next one's. */
  let carried: Uint8Array = new Uint8Array(0);
  let audioBytes = 0;
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await sentences.next();
    } catch {
      // Close an event opened early as an empty chunk, which clients skip.
      if (sent === 0 && openedEarly && !(await sendEvents(res, '","done":false}\n', config.maxPartBytes))) {
        return;
      }
      await send([
        { type: "error", status_code: 500, done: true, data: "synthesis failed", context_id: contextId },
      ]);
      return;
    }
    if (next.done) break;
    audioBytes += next.value.byteLength;
    const audio = carried.byteLength === 0 ? next.value : Buffer.concat([carried, next.value]);
    const whole = audio.byteLength - (audio.byteLength % bytesPerChunk);
    for (let offset = 0; offset < whole; offset += bytesPerChunk) {
      if (!(await sendChunk(audio.subarray(offset, offset + bytesPerChunk)))) return;
    }
    carried = audio.slice(whole);
  }
  if (carried.byteLength > 0 && !(await sendChunk(carried))) return;

  const audioSeconds = audioBytes / BYTES_PER_SAMPLE[encoding] / sampleRate;
  const timestamps = request.addTimestamps
    ? [
        {
          type: "timestamps",
          word_timestamps: estimateWordTimestamps(request.transcript, audioSeconds),
          done: false,
          status_code: 200,
          context_id: contextId,
        },
      ]
    : [];
  await send([...timestamps, { type: "done", done: true, status_code: 200, context_id: contextId }]);
}

/** The flite voice for a Sonic voice id: a flite voice's own name selects it, anything else is `slt`. */
function fliteVoice(voiceId: string): FliteVoice {
  return FLITE_VOICES.find((voice) => voice === voiceId) ?? "slt";
}

/**
 * Word timestamps in Sonic's shape (seconds). Flite does not report word boundaries through this
 * engine, so these are estimates: the audio's duration spread over the words in proportion to their
 * length in characters. Good enough to exercise the wire format, not to align anything.
 */
function estimateWordTimestamps(
  transcript: string,
  seconds: number,
): { words: string[]; start: number[]; end: number[] } {
  const words = transcript.split(/\s+/).filter((word) => word !== "");
  const total = words.reduce((sum, word) => sum + word.length, 0);
  const start: number[] = [];
  const end: number[] = [];
  let at = 0;
  for (const word of words) {
    start.push(at);
    at += (seconds * word.length) / total;
    end.push(at);
  }
  return { words, start, end };
}

/** Frames `text` as payload parts and writes them; resolves false once the client has gone. */
async function sendEvents(res: ServerResponse, text: string, maxPartBytes: number): Promise<boolean> {
  return writeFrames(res, eventFrames(text, maxPartBytes));
}

/** `text` as `PayloadPart` frames of at most `maxPartBytes` each. */
function eventFrames(text: string, maxPartBytes: number): Uint8Array[] {
  return splitBytes(new TextEncoder().encode(text), maxPartBytes).map((part) => payloadPartFrame(part));
}

/** Writes `frames` in order, waiting for the connection to drain; false once the client is gone. */
async function writeFrames(res: ServerResponse, frames: Uint8Array[]): Promise<boolean> {
  for (const frame of frames) {
    if (res.destroyed) return false;
    if (!res.write(frame)) await drainedOrClosed(res);
  }
  return !res.destroyed;
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const settle = () => {
      res.off("drain", settle);
      res.off("close", settle);
      resolve();
    };
    res.on("drain", settle);
    res.on("close", settle);
  });
}

/** The body, or `undefined` when it is larger than SageMaker accepts (read to the end regardless). */
async function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.byteLength;
    if (bytes <= MAX_REQUEST_BYTES) chunks.push(chunk);
  }
  return bytes <= MAX_REQUEST_BYTES ? Buffer.concat(chunks) : undefined;
}

/** The body of the injected mid-stream failure, shaped as SageMaker's `ModelStreamError`. */
const MODEL_STREAM_ERROR = { Message: "Model stream failed (injected fault)", ErrorCode: "ModelStreamError" };

/**
 * What SageMaker Runtime answers when the model container answers an error (422: rejected input;
 * 429: no capacity) before streaming: 424 `ModelError`, with the container's status and body as
 * `OriginalStatusCode` / `OriginalMessage`.
 */
function modelErrorResponse(res: ServerResponse, originalStatus: number, containerBody: object): void {
  const originalMessage = JSON.stringify(containerBody);
  json(
    res,
    424,
    { "x-amzn-errortype": "ModelError" },
    {
      ErrorCode: "CLIENT_ERROR_FROM_MODEL",
      OriginalStatusCode: originalStatus,
      OriginalMessage: originalMessage,
      Message: `Received client error (${originalStatus}) from primary with message "${originalMessage}".`,
    },
  );
}

function json(res: ServerResponse, status: number, headers: Record<string, string>, body: object): void {
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "x-amzn-requestid": randomUUID(),
  });
  res.end(JSON.stringify(body));
}
