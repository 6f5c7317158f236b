import type Cartesia from "@cartesia/cartesia-js";
import { VERSION as CARTESIA_SDK_VERSION } from "@cartesia/cartesia-js/version";
import {
  type Processor,
  SynthesisFailed,
  SynthesisRejected,
  type SynthesisRequest,
  SynthesisStreamInterrupted,
  type Synthesizer,
} from "@voxtrail/core";
import { SONIC_LANGUAGES } from "@voxtrail/workflow";
import { CartesiaConnection, type CartesiaConnectionOptions } from "../cartesia/cartesia-connection";
import { synthesisErrorForEvent, toCartesiaSynthesisError } from "../cartesia/cartesia-errors";
import { WireWatch, watchWire } from "../wire/wire-watch";
import { TimedSynthesisStream } from "./timed-synthesis-stream";

/** Sample rates Cartesia's TTS API accepts for raw output. */
export const CARTESIA_SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;
type CartesiaSampleRate = (typeof CARTESIA_SAMPLE_RATES)[number];

/** How to reach Cartesia's TTS API, and what to ask it for. */
export interface CartesiaApiSynthesizerOptions extends CartesiaConnectionOptions {
  /** The Sonic model id, e.g. `sonic-3` (an alias) or `sonic-3-2025-10-27` (pinned). */
  model: string;
  /** The voice id used when a request names none. */
  voiceId: string;
  /** A gap between audio chunks longer than this is a stall in `delivery()`; 250 ms by default. */
  stallThresholdMs?: number;
}

/**
 * Cartesia Sonic through Cartesia's own API: `tts.generateSSE` (`POST /tts/sse`) streams
 * server-sent events whose `chunk`s carry base64 audio, yielded here as raw bytes in the requested
 * format. The text leaves for Cartesia: the processor's boundary is `third-party` with the API's host.
 *
 * The SDK does not throw on an SSE `error` event; this does. Failures are named
 * ({@link toCartesiaSynthesisError}): status 429 is `SynthesisThrottled`, another 4xx
 * `SynthesisRejected` (also a sample rate the API does not offer, refused before sending), a stream
 * that breaks or ends before `done` `SynthesisStreamInterrupted`, anything else `SynthesisFailed`.
 * No message carries the text or the API key.
 *
 * @example
 * const synthesizer = new CartesiaApiSynthesizer({
 *   apiKey: async () => process.env.CARTESIA_API_KEY ?? "",
 *   model: "sonic-3",
 *   voiceId: "bf0a246a-8642-498a-9950-80c35e9276b5",
 * });
 * const stream = synthesizer.synthesize({
 *   text: "Thanks for calling.",
 *   language: "en",
 *   format: { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
 * });
 * for await (const audio of stream) output.write(audio);
 * stream.timings(); // synthesize.ttfb, synthesize.total, synthesize.maxGap
 */
export class CartesiaApiSynthesizer implements Synthesizer {
  readonly processor: Processor;
  /** What Cartesia documents for Sonic ({@link SONIC_LANGUAGES}). */
  readonly languages: readonly string[] = SONIC_LANGUAGES;
  readonly #connection: CartesiaConnection;
  readonly #options: CartesiaApiSynthesizerOptions;

  constructor(options: CartesiaApiSynthesizerOptions) {
    this.#connection = new CartesiaConnection(options);
    this.#options = options;
    this.processor = {
      provider: "cartesia-api",
      model: options.model,
      version: `cartesia-js ${CARTESIA_SDK_VERSION}`,
      endpoint: `${this.#connection.baseURL}/tts/sse`,
      boundary: this.#connection.boundary,
    };
  }

  /** Starts nothing yet: the request goes out when the returned stream is first iterated. */
  synthesize(request: SynthesisRequest): CartesiaSynthesisStream {
    return new CartesiaSynthesisStream(() => this.#connection.client(), this.#options, request);
  }
}

/**
 * One Cartesia TTS synthesis: iterate it once for raw audio chunks. Its `timings()` and `delivery()`
 * are those of {@link TimedSynthesisStream}: ttfb at the first `chunk` event carrying audio, total at the
 * `done` event.
 */
export class CartesiaSynthesisStream extends TimedSynthesisStream {
  readonly #client: () => Promise<Cartesia>;
  readonly #options: CartesiaApiSynthesizerOptions;

  constructor(
    client: () => Promise<Cartesia>,
    options: CartesiaApiSynthesizerOptions,
    request: SynthesisRequest,
  ) {
    super(request, options.stallThresholdMs);
    this.#client = client;
    this.#options = options;
  }

  protected async *run(): AsyncGenerator<Uint8Array> {
    const { text, language, format, voiceId } = this.request;
    const sampleRate = format.sampleRate;
    if (!isCartesiaSampleRate(sampleRate)) {
      throw new SynthesisRejected(
        `Cartesia TTS offers sample rates ${CARTESIA_SAMPLE_RATES.join(", ")}; ${sampleRate} was asked for`,
      );
    }
    let events: AsyncIterable<unknown>;
    try {
      const client = await this.#client();
      this.timer.requestSent();
      const wire = new WireWatch(() => this.timer.now());
      events = await watchWire(wire, () =>
        client.tts.generateSSE(
          {
            model_id: this.#options.model,
            transcript: text,
            language,
            voice: { mode: "id", id: voiceId ?? this.#options.voiceId },
            output_format: { container: "raw", encoding: format.encoding, sample_rate: sampleRate },
          },
          // The attempt's signal aborts the request: a timed-out attempt stops its stream.
          this.request.signal ? { signal: this.request.signal } : undefined,
        ),
      );
      // The request that answered went onto the wire then (fetch: undici's first write of it).
      this.timer.requestWritten(wire.writtenAt);
    } catch (error) {
      throw toCartesiaSynthesisError(error, { streamOpen: false });
    }

    let done = false;
    try {
      // Breaking out of the SDK's stream (after `done`, or when the consumer stops) aborts the request.
      for await (const event of events) {
        const { type, data, status_code: statusCode } = (event ?? {}) as Record<string, unknown>;
        if (type === "chunk") {
          if (typeof data !== "string") throw new SynthesisFailed("Cartesia TTS chunk event is malformed");
          // Copied out of Buffer's shared pool, so that `audio.buffer` holds this chunk only.
          const audio = new Uint8Array(Buffer.from(data, "base64"));
          if (audio.byteLength === 0) continue;
          this.timer.chunk(audio.byteLength);
          yield audio;
        } else if (type === "error") {
          throw synthesisErrorForEvent(typeof statusCode === "number" ? statusCode : undefined);
        } else if (type === "done") {
          this.timer.done();
          done = true;
          break;
        }
      }
    } catch (error) {
      throw toCartesiaSynthesisError(error, { streamOpen: true });
    }
    if (!done) throw new SynthesisStreamInterrupted("Cartesia TTS stream ended before its done event");
  }
}

function isCartesiaSampleRate(rate: number): rate is CartesiaSampleRate {
  return (CARTESIA_SAMPLE_RATES as readonly number[]).includes(rate);
}
