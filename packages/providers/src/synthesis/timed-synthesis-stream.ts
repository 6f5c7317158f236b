import type { StreamDelivery, SynthesisRequest, SynthesisStream, Timing } from "@voxtrail/core";
import { SynthesisTimer } from "./synthesis-timer";

/** Gaps between audio chunks longer than this count as stalls unless a synthesizer says otherwise. */
export const DEFAULT_STALL_THRESHOLD_MS = 250;

/**
 * What every streaming synthesis shares: it is iterated once, and its timings, delivered audio
 * duration and delivery come from one {@link SynthesisTimer}. A provider implements `run()`,
 * calling the timer as the request goes out, as audio arrives, and when the stream says it is done.
 *
 * @example
 * class MyStream extends TimedSynthesisStream {
 *   protected async *run() {
 *     this.timer.requestSent();
 *     for await (const audio of provider(this.request)) {
 *       this.timer.chunk(audio.byteLength);
 *       yield audio;
 *     }
 *     this.timer.done();
 *   }
 * }
 */
export abstract class TimedSynthesisStream implements SynthesisStream {
  protected readonly timer = new SynthesisTimer();
  #iterated = false;

  constructor(
    protected readonly request: SynthesisRequest,
    private readonly stallThresholdMs: number = DEFAULT_STALL_THRESHOLD_MS,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.#iterated) throw new Error("a synthesis stream can be iterated only once");
    this.#iterated = true;
    return this.run();
  }

  /** The timings measured so far (complete once iteration ends). */
  timings(): Timing[] {
    return this.timer.timings();
  }

  /** Duration of the audio delivered so far, in milliseconds, from its byte count and format. */
  audioMs(): number {
    return this.timer.audioMs(this.request.format);
  }

  /** Every inter-chunk gap, the stalls over the threshold, total time and real-time factor so far. */
  delivery(): StreamDelivery {
    return this.timer.delivery(this.request.format, this.stallThresholdMs);
  }

  /** The provider's request and its stream of raw audio chunks. */
  protected abstract run(): AsyncGenerator<Uint8Array>;
}
