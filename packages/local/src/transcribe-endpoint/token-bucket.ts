/**
 * A token bucket: `ratePerSecond` tokens a second, holding at most one second's worth, so a burst
 * of `ratePerSecond` requests passes and then one per `1 / ratePerSecond` s. Time is the global
 * `Date.now()`, so a fake clock (vitest's `vi.useFakeTimers()`) drives it.
 *
 * @example
 * const bucket = new TokenBucket(25);
 * if (!bucket.take()) throw throttled();
 */
export class TokenBucket {
  #tokens: number;
  #refilledAt = Date.now();

  constructor(private readonly ratePerSecond: number) {
    this.#tokens = ratePerSecond;
  }

  /** Takes a token if one is there; false when the bucket is empty. */
  take(): boolean {
    const now = Date.now();
    const refill = ((now - this.#refilledAt) / 1000) * this.ratePerSecond;
    this.#tokens = Math.min(this.ratePerSecond, this.#tokens + refill);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
