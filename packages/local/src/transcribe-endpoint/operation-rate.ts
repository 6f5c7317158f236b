import type { QuotaUse } from "./transcribe-quotas";

/**
 * One operation's transactions-per-second quota: at most `limit` requests are admitted in each
 * clock second (`Date.now()`, which a fake clock drives); the rest of that second's requests are
 * refused (none with an `Infinity` limit). AWS names the quota per second and publishes no
 * algorithm, so the stand-in counts whole seconds: no second admits more than the quota. Keeps the
 * most admitted in one second (the quota's use), the most that arrived (the demand, refused ones
 * included) and the refusals.
 *
 * @example
 * const gets = new OperationRate("getTranscriptionJobPerSecond", 30);
 * if (!gets.admit()) throw throttled();
 */
export class OperationRate {
  #second = Number.NaN;
  #arrived = 0;
  #admitted = 0;
  #peakAdmitted = 0;
  #peakArrived = 0;
  #refused = 0;

  constructor(
    private readonly name: string,
    private readonly limit: number,
  ) {}

  /** Counts a request; whether the quota lets it through. */
  admit(): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#arrived = 0;
      this.#admitted = 0;
    }
    this.#arrived += 1;
    this.#peakArrived = Math.max(this.#peakArrived, this.#arrived);
    if (this.#admitted >= this.limit) {
      this.#refused += 1;
      return false;
    }
    this.#admitted += 1;
    this.#peakAdmitted = Math.max(this.#peakAdmitted, this.#admitted);
    return true;
  }

  /** The most requests admitted in one second against the limit; the most that arrived; the refusals. */
  use(): QuotaUse {
    return {
      name: this.name,
      peak: this.#peakAdmitted,
      limit: this.limit,
      demand: this.#peakArrived,
      refused: this.#refused,
    };
  }
}
