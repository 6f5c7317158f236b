/**
 * A Bedrock-like model quota: Bedrock's on-demand "requests per minute" and "tokens per minute"
 * for one model in one Region (SERVICE_QUOTAS.bedrock: per model, no single default).
 */
export interface BedrockQuota {
  requestsPerMinute: number;
  /** Input and output tokens together, as Bedrock counts them; no token limit without it. */
  tokensPerMinute?: number;
}

/** A quota's figures over a run: the most it accepted in one minute, its limit, calls it refused. */
export interface MinuteUse {
  peak: number;
  limit: number;
  refused: number;
}

/**
 * Bedrock's per-minute quotas on the global clock (`Date.now()`; fake timers drive it in a load
 * run): each quota is a bucket of its per-minute limit, full again at the start of every minute
 * (minutes counted from the first call, so a run's figures do not depend on the wall clock it
 * started at). A call takes one request and its tokens from both buckets, or from neither: it is
 * refused when either lacks them (the request bucket is checked first and is charged the
 * refusal). So no minute accepts more than either limit. AWS does not publish Bedrock's
 * algorithm; the quotas are named per minute (docs/load-rehearsal.md).
 *
 * @example
 * const throttle = new BedrockThrottle({ requestsPerMinute: 50, tokensPerMinute: 100_000 });
 * throttle.take(900); // false once this minute's requests or tokens are spent
 */
export class BedrockThrottle {
  #firstCall: number | undefined;
  #minute = Number.NaN;
  readonly #requests: MinuteBucket;
  readonly #tokens: MinuteBucket | undefined;

  constructor(quota: BedrockQuota) {
    this.#requests = new MinuteBucket(quota.requestsPerMinute);
    this.#tokens = quota.tokensPerMinute === undefined ? undefined : new MinuteBucket(quota.tokensPerMinute);
  }

  /** Takes one request of `tokens` tokens now; whether the quotas accepted it. */
  take(tokens: number): boolean {
    const now = Date.now();
    this.#firstCall ??= now;
    const minute = Math.floor((now - this.#firstCall) / 60_000);
    if (minute !== this.#minute) {
      this.#minute = minute;
      this.#requests.refill();
      this.#tokens?.refill();
    }
    if (!this.#requests.has(1)) return this.#requests.refuse();
    if (this.#tokens && !this.#tokens.has(tokens)) return this.#tokens.refuse();
    this.#requests.take(1);
    this.#tokens?.take(tokens);
    return true;
  }

  /** Each quota's peak accepted in one minute beside its limit, and the calls it refused. */
  use(): { requestsPerMinute: MinuteUse; tokensPerMinute?: MinuteUse } {
    return {
      requestsPerMinute: this.#requests.use(),
      ...(this.#tokens ? { tokensPerMinute: this.#tokens.use() } : {}),
    };
  }
}

/** One per-minute quota: what is left of this minute's limit, the peak taken in a minute, refusals. */
class MinuteBucket {
  #left: number;
  #peak = 0;
  #refused = 0;

  constructor(private readonly limit: number) {
    this.#left = limit;
  }

  refill(): void {
    this.#left = this.limit;
  }

  has(amount: number): boolean {
    return amount <= this.#left;
  }

  take(amount: number): void {
    this.#left -= amount;
    this.#peak = Math.max(this.#peak, this.limit - this.#left);
  }

  refuse(): false {
    this.#refused += 1;
    return false;
  }

  use(): MinuteUse {
    return { peak: this.#peak, limit: this.limit, refused: this.#refused };
  }
}
