import * as z from "zod/mini";

/**
 * A latency figure that names its boundary (docs/architecture.md, "Principle 5"): `ms` elapsed from
 * `startEvent` to `endEvent`, both named events of the stage `name` belongs to.
 */
export const Timing = z.object({
  name: z.string(),
  startEvent: z.string(),
  endEvent: z.string(),
  ms: z.number().check(z.nonnegative()),
});
export type Timing = z.infer<typeof Timing>;

/**
 * Records named events on the monotonic clock and turns pairs of them into timings.
 *
 * @example
 * const clock = new EventClock();
 * clock.mark("request.sent");
 * // ... first byte arrives
 * clock.mark("audio.firstByte");
 * clock.timing("synthesize.ttfb", "request.sent", "audio.firstByte");
 */
export class EventClock {
  readonly #marks = new Map<string, number>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Records `event` now, or at `at` (a time on this clock's `now`, for an event seen where the clock
   * is not at hand, such as a request's first byte going onto the wire); a second mark of the same
   * event keeps the first.
   */
  mark(event: string, at?: number): void {
    if (!this.#marks.has(event)) this.#marks.set(event, at ?? this.now());
  }

  /**
   * Runs `work` between the marks `<name>.start` and `<name>.end` (the end is marked whether it
   * succeeds or fails) and resolves to its result.
   *
   * @example
   * const transcript = await clock.span("engine", () => transcriber.transcribe(audio, options));
   * clock.timing("transcribe.engine", "engine.start", "engine.end");
   */
  async span<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.mark(`${name}.start`);
    try {
      return await work();
    } finally {
      this.mark(`${name}.end`);
    }
  }

  /** Whether `event` has been marked. */
  has(event: string): boolean {
    return this.#marks.has(event);
  }

  /** The timing between two marked events; throws if either was never marked. */
  timing(name: string, startEvent: string, endEvent: string): Timing {
    const start = this.#marks.get(startEvent);
    const end = this.#marks.get(endEvent);
    if (start === undefined || end === undefined) {
      throw new Error(
        `timing ${name}: event ${start === undefined ? startEvent : endEvent} was never marked`,
      );
    }
    return { name, startEvent, endEvent, ms: round(end - start) };
  }
}

/** Milliseconds rounded to microseconds: enough precision, stable JSON. */
export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
