/** Step Functions' StartExecution quota for Standard workflows: a token bucket. */
export interface StartExecutionQuota {
  /** Bucket size (SERVICE_QUOTAS.stepFunctions.startExecutionBucket: 1,300 in us-east-1). */
  bucket: number;
  /** Refill rate per second (SERVICE_QUOTAS.stepFunctions.startExecutionRefill: 300 in us-east-1). */
  refillPerSecond: number;
}

/** A StartExecution refused by the bucket, as Step Functions names it. */
export class StartExecutionThrottled extends Error {
  override readonly name = "ThrottlingException";
}

/**
 * The StartExecution token bucket on the global clock (`Date.now()`): starts `bucket` executions at
 * once, then `refillPerSecond` a second; each start beyond it is refused with a throttle. Keeps the
 * most tokens drawn at once and the refusals.
 *
 * @example
 * const rate = new StartRate({ bucket: 1300, refillPerSecond: 300 });
 * rate.take(); // throws StartExecutionThrottled when the bucket is empty
 */
export class StartRate {
  #tokens: number;
  #refilledAt = Date.now();
  #lowest: number;
  #throttled = 0;

  constructor(private readonly quota: StartExecutionQuota) {
    this.#tokens = quota.bucket;
    this.#lowest = quota.bucket;
  }

  /** Takes one start's token. @throws StartExecutionThrottled when there is none. */
  take(): void {
    const now = Date.now();
    this.#tokens = Math.min(
      this.quota.bucket,
      this.#tokens + ((now - this.#refilledAt) / 1000) * this.quota.refillPerSecond,
    );
    this.#refilledAt = now;
    if (this.#tokens < 1) {
      this.#throttled += 1;
      throw new StartExecutionThrottled("Rate exceeded");
    }
    this.#tokens -= 1;
    this.#lowest = Math.min(this.#lowest, this.#tokens);
  }

  /** The bucket's use: most tokens taken at once (its size less its lowest level), and refusals. */
  use() {
    return {
      bucketDrawn: { peak: Math.round(this.quota.bucket - this.#lowest), limit: this.quota.bucket },
      throttled: this.#throttled,
    };
  }
}
