import { BYTES_PER_SAMPLE } from "@voxtrail/audio";
import {
  type AudioFormat,
  EventClock,
  round,
  type Stall,
  type StreamDelivery,
  type Timing,
} from "@voxtrail/core";
import { ATTEMPT_METRICS } from "@voxtrail/workflow";

const REQUEST_SENT = "request.sent";
/** The request's first byte was written to its socket (a {@link WireWatch}'s `writtenAt`). */
const REQUEST_WRITTEN = "request.firstByteWritten";

/** The names of `synthesize.ttfb`'s two parts, split where the request went onto the wire. */
export const WIRE_TIMINGS = {
  /** `request.sent` -> `request.firstByteWritten`: the client's set-up before the request left. */
  clientSetup: "synthesize.clientSetup",
  /** `request.firstByteWritten` -> `audio.firstChunk`: time to first audio measured on the wire. */
  wireTtfb: "synthesize.wireTtfb",
} as const;

/**
 * The bookkeeping every streaming synthesizer does: when the request went out, when audio chunks
 * arrived, when the stream said it was done. Its `timings()` are:
 * - `synthesize.ttfb`: `request.sent` -> `audio.firstChunk` (the first chunk carrying audio, not
 *   the response headers);
 * - `synthesize.total`: `request.sent` -> `stream.done` (the provider's own end-of-stream event);
 * - `synthesize.maxGap`: the largest gap between the arrivals of consecutive audio chunks
 *   (`audio.chunk` -> `audio.chunk.next`), when there were at least two;
 * - when the provider saw its request go onto the wire ({@link SynthesisTimer.requestWritten}),
 *   `synthesize.ttfb` split there: `synthesize.clientSetup` (`request.sent` ->
 *   `request.firstByteWritten`: credentials, signing, the connection, a fresh client's first-call
 *   loading) and `synthesize.wireTtfb` (`request.firstByteWritten` -> `audio.firstChunk`: the
 *   network and the model). The two add up to `synthesize.ttfb`, which keeps its definition.
 *
 * `delivery()` keeps every one of those gaps, the stalls over a threshold, and the real-time
 * factor. All of it is measured on the monotonic clock.
 *
 * @example
 * const timer = new SynthesisTimer();
 * timer.requestSent();
 * timer.requestWritten(wire.writtenAt); // when the request's first byte was written (WireWatch)
 * for await (const audio of chunks) timer.chunk(audio.byteLength);
 * timer.done();
 * timer.timings(); // synthesize.ttfb, synthesize.total, synthesize.maxGap, synthesize.clientSetup, synthesize.wireTtfb
 */
export class SynthesisTimer {
  readonly #now: () => number;
  readonly #clock: EventClock;
  #chunks = 0;
  #audioBytes = 0;
  #lastChunkAt = 0;
  readonly #gaps: number[] = [];
  /** Kept as chunks arrive: `Math.max(...gaps)` overflows the call stack past ~125,000 gaps (a 40-minute reply). */
  #maxGap = Number.NEGATIVE_INFINITY;
  #sentAt: number | undefined;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#clock = new EventClock(now);
  }

  /** The current time on the timer's clock, for chunks that share one arrival. */
  now(): number {
    return this.#now();
  }

  /** Marks `request.sent`. */
  requestSent(): void {
    this.#sentAt ??= this.#now();
    this.#clock.mark(REQUEST_SENT, this.#sentAt);
  }

  /**
   * Marks `request.firstByteWritten` at `at` (a time on the timer's clock, no earlier than
   * `request.sent`): the request's first byte was written to its socket. Nothing is marked when
   * `at` is undefined (the request was not seen on the wire), nor when it is earlier than
   * `request.sent`: such a mark belongs to another request (a connection another call opened and
   * left), and no wire timings are better than wrong ones.
   */
  requestWritten(at: number | undefined): void {
    if (at === undefined || this.#sentAt === undefined || at < this.#sentAt) return;
    this.#clock.mark(REQUEST_WRITTEN, at);
  }

  /** Records a chunk of `bytes` audio bytes that arrived at `arrivedAt` (default: now). */
  chunk(bytes: number, arrivedAt: number = this.#now()): void {
    if (this.#chunks === 0) {
      this.#clock.mark("audio.firstChunk");
    } else {
      const gap = arrivedAt - this.#lastChunkAt;
      this.#gaps.push(gap);
      if (gap > this.#maxGap) this.#maxGap = gap;
    }
    this.#chunks += 1;
    this.#lastChunkAt = arrivedAt;
    this.#audioBytes += bytes;
  }

  /** Marks `stream.done`: the provider said the audio is complete. */
  done(): void {
    this.#clock.mark("stream.done");
  }

  /** How many audio chunks arrived so far. */
  get chunks(): number {
    return this.#chunks;
  }

  /** The timings measured so far (complete once the stream is done). */
  timings(): Timing[] {
    const timings: Timing[] = [];
    if (this.#clock.has("audio.firstChunk")) {
      timings.push(this.#clock.timing(ATTEMPT_METRICS.ttfb, "request.sent", "audio.firstChunk"));
    }
    if (this.#clock.has("stream.done")) {
      timings.push(this.#clock.timing("synthesize.total", "request.sent", "stream.done"));
    }
    if (this.#clock.has(REQUEST_WRITTEN)) {
      timings.push(this.#clock.timing(WIRE_TIMINGS.clientSetup, REQUEST_SENT, REQUEST_WRITTEN));
      if (this.#clock.has("audio.firstChunk")) {
        timings.push(this.#clock.timing(WIRE_TIMINGS.wireTtfb, REQUEST_WRITTEN, "audio.firstChunk"));
      }
    }
    if (this.#chunks > 1) {
      timings.push({
        name: "synthesize.maxGap",
        startEvent: "audio.chunk",
        endEvent: "audio.chunk.next",
        ms: round(this.#maxGap),
      });
    }
    return timings;
  }

  /** Duration of the audio received so far, in milliseconds, from its byte count and `format`. */
  audioMs(format: AudioFormat): number {
    return round(((this.#audioBytes / BYTES_PER_SAMPLE[format.encoding]) * 1000) / format.sampleRate);
  }

  /** Every inter-chunk gap, the gaps over `stallThresholdMs`, total time and real-time factor so far. */
  delivery(format: AudioFormat, stallThresholdMs: number): StreamDelivery {
    const gapsMs = this.#gaps.map(round);
    const stalls: Stall[] = [];
    gapsMs.forEach((ms, index) => {
      if (ms > stallThresholdMs) stalls.push({ afterChunk: index + 1, ms });
    });
    const totalMs = this.#clock.has("stream.done")
      ? this.#clock.timing("synthesize.total", "request.sent", "stream.done").ms
      : 0;
    const audioMs = this.audioMs(format);
    return {
      chunks: this.#chunks,
      gapsMs,
      stallThresholdMs,
      stalls,
      totalMs,
      audioMs,
      rtf: audioMs > 0 ? Math.round((totalMs / audioMs) * 10_000) / 10_000 : 0,
    };
  }
}
