/** How fast the endpoint produces audio: `secondsPerAudioSecond` of time per second of audio. */
export interface GenerationTime {
  secondsPerAudioSecond: number;
}

/**
 * Paces one stream's audio at a {@link GenerationTime}, counted from when the stream began: the
 * chunk that ends at audio time `t` leaves no earlier than `secondsPerAudioSecond * t` after it
 * (or when flite is done, if later). Time is the global `Date.now()` and `setTimeout`, so a fake
 * clock drives it. Without a generation time, audio goes as fast as flite makes it.
 *
 * @example
 * const pace = new GenerationPace(options.generationTime);
 * await pace.until(audioMsSentSoFar + chunkMs);
 */
export class GenerationPace {
  readonly #startedAt = Date.now();

  constructor(private readonly time: GenerationTime | undefined) {}

  /** Resolves once audio up to `audioMs` is due. */
  until(audioMs: number): Promise<void> {
    if (this.time === undefined) return Promise.resolve();
    const ms = Math.ceil(this.#startedAt + this.time.secondsPerAudioSecond * audioMs) - Date.now();
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  }
}

/** @throws RangeError unless `secondsPerAudioSecond` is finite and not negative. */
export function checkGenerationTime(time: GenerationTime | undefined): void {
  if (
    time !== undefined &&
    !(Number.isFinite(time.secondsPerAudioSecond) && time.secondsPerAudioSecond >= 0)
  ) {
    throw new RangeError("generationTime.secondsPerAudioSecond must be a non-negative number");
  }
}
