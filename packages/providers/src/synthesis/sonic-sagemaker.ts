import { randomUUID } from "node:crypto";
import {
  InvokeEndpointWithResponseStreamCommand,
  type InvokeEndpointWithResponseStreamCommandOutput,
  type SageMakerRuntimeClient,
} from "@aws-sdk/client-sagemaker-runtime";
import {
  type Processor,
  SynthesisFailed,
  type SynthesisRequest,
  SynthesisStreamInterrupted,
  type Synthesizer,
} from "@voxtrail/core";
import { observeSdkCalls } from "../aws/sdk-calls";
import { WireWatch, watchWire } from "../wire/wire-watch";
import { toSynthesisError } from "./sagemaker-errors";
import { SonicEventDecoder, type WordTiming } from "./sonic-events";
import { TimedSynthesisStream } from "./timed-synthesis-stream";

/** How to reach a Cartesia Sonic model deployed as a SageMaker endpoint. */
export interface SonicSageMakerOptions {
  /** A SageMaker Runtime client; its region, credentials and endpoint URL decide where data goes. */
  client: SageMakerRuntimeClient;
  endpointName: string;
  /** The Sonic voice id used when a request names none. */
  voiceId: string;
  /** What lineage records about this synthesizer (provider, model, version, boundary). */
  processor: Processor;
  /**
   * The languages the model behind the endpoint speaks, when known (`SYNTHESIZER_LANGUAGES` of
   * the choice that built it); left out, the synthesizer declares none.
   */
  languages?: readonly string[];
  /**
   * What lineage records for a language whose speech comes from something else than `processor`
   * (the local endpoint's Spanish is espeak-ng's, not flite's): `undefined` keeps `processor`.
   */
  processorFor?: (language: string) => Processor | undefined;
  /** Ask Sonic for word timestamps (`add_timestamps`); read them from `SonicSynthesisStream.words()`. */
  addTimestamps?: boolean;
  /** A gap between audio chunks longer than this is a stall in `delivery()`; 250 ms by default. */
  stallThresholdMs?: number;
}

/**
 * Cartesia Sonic served by a SageMaker endpoint, streamed with `InvokeEndpointWithResponseStream`
 * (wire format: docs/architecture.md, "Cartesia Sonic on SageMaker"). The request is sent when iteration
 * starts; audio arrives as raw samples in the requested format, chunk by chunk.
 *
 * Failures are named ({@link toSynthesisError}): `SynthesisThrottled` (no capacity),
 * `SynthesisRejected` (bad input), `SynthesisStreamInterrupted` (the stream broke after it began,
 * or ended without Sonic's `done` event), `SynthesisFailed` (anything else, including an `error`
 * event from the model). No message carries the text being spoken.
 *
 * @example
 * const synthesizer = new SonicSageMakerSynthesizer({
 *   client: new SageMakerRuntimeClient({}),
 *   endpointName: "sonic-3-6",
 *   voiceId: "bf0a246a-8642-498a-9950-80c35e9276b5",
 *   processor: {
 *     provider: "sonic-sagemaker",
 *     model: "sonic-3.6",
 *     version: "3.6",
 *     endpoint: "sonic-3-6",
 *     boundary: { kind: "aws-account", service: "sagemaker", region: "us-east-1" },
 *   },
 * });
 * const stream = synthesizer.synthesize({
 *   text: "Thanks for calling.",
 *   language: "en",
 *   format: { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
 * });
 * for await (const audio of stream) output.write(audio);
 * stream.timings(); // synthesize.ttfb, .total, .maxGap, and ttfb's parts .clientSetup, .wireTtfb
 * stream.delivery(); // every inter-chunk gap, stalls, rtf
 */
export class SonicSageMakerSynthesizer implements Synthesizer {
  readonly processor: Processor;
  /** The languages it was told the endpoint's model speaks (`SonicSageMakerOptions.languages`). */
  readonly languages?: readonly string[];
  readonly processorFor?: (language: string) => Processor;
  readonly #options: SonicSageMakerOptions;

  constructor(options: SonicSageMakerOptions) {
    this.processor = options.processor;
    if (options.languages) this.languages = options.languages;
    this.#options = options;
    const { processorFor } = options;
    if (processorFor) this.processorFor = (language) => processorFor(language) ?? this.processor;
    observeSdkCalls(options.client, "sagemaker-runtime");
  }

  /** Starts nothing yet: the request goes out when the returned stream is first iterated. */
  synthesize(request: SynthesisRequest): SonicSynthesisStream {
    return new SonicSynthesisStream(this.#options, request);
  }
}

/**
 * One Sonic synthesis: iterate it once for raw audio chunks in the requested format. Once
 * iteration ends, `timings()` holds:
 * - `synthesize.ttfb`: `request.sent` -> `audio.firstChunk` (the first payload part carrying audio,
 *   not the response headers);
 * - `synthesize.total`: `request.sent` -> `stream.done` (Sonic's `done` event);
 * - `synthesize.maxGap`: the largest gap between the arrivals of consecutive audio chunks
 *   (`audio.chunk` -> `audio.chunk.next`), when there were at least two;
 * - `synthesize.clientSetup`: `request.sent` -> `request.firstByteWritten` (the request's first
 *   byte written to its socket: the SDK's set-up, a fresh client's first-call loading and the
 *   connection are before it) and `synthesize.wireTtfb`: `request.firstByteWritten` ->
 *   `audio.firstChunk`, time to first audio on the wire. They add up to `synthesize.ttfb`.
 *
 * `delivery()` keeps every one of those gaps, the stalls over the threshold, and the real-time
 * factor. All of it is measured on the monotonic clock.
 */
export class SonicSynthesisStream extends TimedSynthesisStream {
  readonly #options: SonicSageMakerOptions;
  readonly #words: WordTiming[] = [];

  constructor(options: SonicSageMakerOptions, request: SynthesisRequest) {
    super(request, options.stallThresholdMs);
    this.#options = options;
  }

  /** Word timestamps Sonic sent (only when the synthesizer was built with `addTimestamps`). */
  words(): WordTiming[] {
    return [...this.#words];
  }

  protected async *run(): AsyncGenerator<Uint8Array> {
    const abort = new AbortController();
    // The attempt's signal drops the connection too: a timed-out attempt stops its stream.
    const stop = () => abort.abort();
    this.request.signal?.addEventListener("abort", stop, { once: true });
    if (this.request.signal?.aborted) abort.abort();
    let complete = false;
    try {
      this.timer.requestSent();
      const wire = new WireWatch(() => this.timer.now());
      let response: InvokeEndpointWithResponseStreamCommandOutput;
      try {
        response = await watchWire(wire, () =>
          this.#options.client.send(this.#command(), { abortSignal: abort.signal }),
        );
      } catch (error) {
        throw toSynthesisError(error, { audioStarted: false });
      }
      // The attempt that answered went onto the wire then; before it, the client's set-up.
      this.timer.requestWritten(wire.writtenAt);
      const body = response.Body;
      if (body === undefined) throw new SynthesisFailed("SageMaker response has no body");

      const decoder = new SonicEventDecoder();
      let done = false;
      try {
        for await (const part of body) {
          // Drain what follows `done` (normally nothing) so the connection can be reused.
          if (done) continue;
          if (part.ModelStreamError !== undefined) throw part.ModelStreamError;
          if (part.InternalStreamFailure !== undefined) throw part.InternalStreamFailure;
          const bytes = part.PayloadPart?.Bytes;
          if (bytes === undefined) continue;
          const arrivedAt = this.timer.now();
          for (const event of decoder.push(bytes)) {
            if (event.type === "chunk") {
              if (event.audio.byteLength === 0) continue;
              this.timer.chunk(event.audio.byteLength, arrivedAt);
              yield event.audio;
            } else if (event.type === "timestamps") {
              this.#words.push(...event.words);
            } else if (event.type === "error") {
              throw new SynthesisFailed(
                `Sonic reported an error event${event.statusCode === undefined ? "" : ` (status ${event.statusCode})`}`,
              );
            } else {
              this.timer.done();
              done = true;
              break;
            }
          }
        }
      } catch (error) {
        // Once `done` arrived the audio is whole: a failure while draining the rest does not matter.
        if (!done) throw toSynthesisError(error, { audioStarted: this.timer.chunks > 0 });
      }
      if (!done) {
        throw new SynthesisStreamInterrupted(
          `Sonic response stream ended before its done event${decoder.pending ? ", inside an event" : ""}`,
        );
      }
      complete = true;
    } finally {
      // The consumer stopped early, or the stream failed: drop the connection.
      this.request.signal?.removeEventListener("abort", stop);
      if (!complete) abort.abort();
    }
  }

  #command(): InvokeEndpointWithResponseStreamCommand {
    const { text, language, format, voiceId } = this.request;
    const body = {
      context_id: randomUUID(),
      transcript: text,
      language,
      output_format: { container: "raw", encoding: format.encoding, sample_rate: format.sampleRate },
      voice: { mode: "id", id: voiceId ?? this.#options.voiceId },
      ...(this.#options.addTimestamps ? { add_timestamps: true } : {}),
    };
    return new InvokeEndpointWithResponseStreamCommand({
      EndpointName: this.#options.endpointName,
      ContentType: "application/json",
      Accept: "text/event-stream",
      Body: new TextEncoder().encode(JSON.stringify(body)),
    });
  }
}
