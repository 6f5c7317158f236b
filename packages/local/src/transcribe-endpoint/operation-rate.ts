import { TokenBucket } from "./token-bucket";
import type { QuotaUse } from "./transcribe-quotas";

/**
 * One operation's transactions-per-second quota: a {@link TokenBucket} that admits or refuses each
 * request (none with an `Infinity` limit), and the most requests that arrived within one clock
 * second (`Date.now()`), refused ones included: the demand a load report compares with the limit.
 *
 * @example
 * const gets = new OperationRate("getTranscriptionJobPerSecond", 30);
 * if (!gets.admit()) throw throttled();
 */
export class OperationRate {
  readonly #bucket: TokenBucket | undefined;
  #second = Number.NaN;
  #inSecond = 0;
  #peak = 0;

  constructor(
    private readonly name: string,
    private readonly limit: number,
  ) {
    this.#bucket = Number.isFinite(limit) ? new TokenBucket(limit) : undefined;
  }

  /** Counts a request; whether the quota lets it through. */
  admit(): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#inSecond = 0;
    }
    this.#inSecond += 1;
    this.#peak = Math.max(this.#peak, this.#inSecond);
    return this.#bucket?.take() ?? true;
  }

  /** The peak requests in one second, against the limit. */
  use(): QuotaUse {
    return { name: this.name, peak: this.#peak, limit: this.limit };
  }
}
