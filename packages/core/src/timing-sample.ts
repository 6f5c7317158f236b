import * as z from "zod/mini";
import { Timing } from "./timing";

/**
 * The conditions one stage attempt ran under: what processed the data, how much data, and how
 * loaded the system was. Recorded once per activity record; every timing of the attempt inherits
 * them (see {@link TimingSample}), so a latency finding can be reproduced.
 */
export const SampleConditions = z.object({
  /** The attempt's first processor (the engine the stage exists for). */
  provider: z.string(),
  model: z.string(),
  version: z.string(),
  /** Bytes of the attempt's inputs, summed. */
  payloadBytes: z.number().check(z.int(), z.nonnegative()),
  /**
   * Jobs the runtime had in flight when the attempt started, this one included. Absent where the
   * runtime cannot know it (a Lambda instance sees only its own invocation).
   */
  jobsInFlight: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** Synthesis streams open in this process when this one started, this one included. */
  activeStreams: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** Duration of the audio the stage read (Ingest, Transcribe) or produced (Synthesize). */
  audioMs: z.optional(z.number().check(z.nonnegative())),
});
export type SampleConditions = z.infer<typeof SampleConditions>;

/**
 * One raw latency sample: a {@link Timing} (still valid as one) with the job, stage and attempt it
 * was measured in and the conditions it was measured under. Percentiles are computed from these,
 * never from averages (docs/architecture.md, "Principle 5").
 */
export const TimingSample = z.extend(Timing, {
  jobId: z.string(),
  stage: z.string(),
  attempt: z.number().check(z.int(), z.positive()),
  ...SampleConditions.shape,
});
export type TimingSample = z.infer<typeof TimingSample>;

/** One gap between audio chunks longer than the stall threshold. */
export const Stall = z.object({
  /** The 1-based chunk after which delivery stalled. */
  afterChunk: z.number().check(z.int(), z.positive()),
  ms: z.number().check(z.nonnegative()),
});
export type Stall = z.infer<typeof Stall>;

/**
 * How a streamed synthesis delivered its audio: every gap between the arrivals of consecutive
 * audio chunks (monotonic clock), the stalls over a threshold, and the real-time factor.
 */
export const StreamDelivery = z.object({
  chunks: z.number().check(z.int(), z.nonnegative()),
  /** Gap before chunk i+2 arrived after chunk i+1, in order; `chunks - 1` entries. */
  gapsMs: z.array(z.number().check(z.nonnegative())),
  stallThresholdMs: z.number().check(z.positive()),
  stalls: z.array(Stall),
  /** Request sent -> the stream's end, milliseconds. */
  totalMs: z.number().check(z.nonnegative()),
  /** Duration of the audio delivered. */
  audioMs: z.number().check(z.nonnegative()),
  /** `totalMs / audioMs`: below 1 is faster than real time; 0 when there was no audio. */
  rtf: z.number().check(z.nonnegative()),
});
export type StreamDelivery = z.infer<typeof StreamDelivery>;

/**
 * A count of things in progress (jobs in flight, open synthesis streams).
 *
 * @example
 * const streams = new Gauge();
 * const open = streams.enter(); // count including this one
 * try { ... } finally { streams.leave(); }
 */
export class Gauge {
  #value = 0;

  /** Counts one more in progress and returns the new count. */
  enter(): number {
    this.#value += 1;
    return this.#value;
  }

  /** Counts one fewer in progress. */
  leave(): void {
    this.#value = Math.max(0, this.#value - 1);
  }

  /** How many are in progress now. */
  get value(): number {
    return this.#value;
  }
}
