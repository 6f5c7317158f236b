/**
 * EventBridge's retry policy for a target it could not deliver to (a throttled StartExecution, a
 * throttled Lambda invocation): "EventBridge retries sending an event for 24 hours and up to 185
 * times with an exponential back off and jitter" ("Event retry policy and using dead-letter
 * queues", EventBridge user guide). AWS publishes neither the base nor the cap of the backoff:
 * {@link EVENTBRIDGE_RETRY} takes 1 s doubling to a 5-minute cap, with full jitter.
 */
export interface DeliveryRetryPolicy {
  maxAttempts: number;
  maxAgeMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** EventBridge's documented limits (185 attempts, 24 hours); the backoff's base and cap are ours. */
export const EVENTBRIDGE_RETRY: DeliveryRetryPolicy = {
  maxAttempts: 185,
  maxAgeMs: 24 * 3600 * 1000,
  baseDelayMs: 1000,
  maxDelayMs: 300_000,
};

/** What became of one event: delivered after so many attempts, or dropped (retries used up). */
export type DeliveryOutcome = { delivered: true; attempts: number } | { delivered: false; attempts: number };

/**
 * Delivers one event to a target as EventBridge does: tries `send`; while it throws a throttle
 * (`isThrottle`), waits with exponential backoff and full jitter on the global clock and tries
 * again, until {@link DeliveryRetryPolicy}'s attempts or age run out (the event is then dropped,
 * as without a dead-letter queue). Any other error drops the event at once.
 *
 * @example
 * const outcome = await deliverWithRetries(() => start(event), isThrottled, EVENTBRIDGE_RETRY);
 */
export async function deliverWithRetries(
  send: () => Promise<void>,
  isThrottle: (error: unknown) => boolean,
  policy: DeliveryRetryPolicy = EVENTBRIDGE_RETRY,
): Promise<DeliveryOutcome> {
  const firstAt = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await send();
      return { delivered: true, attempts: attempt };
    } catch (error) {
      if (!isThrottle(error)) return { delivered: false, attempts: attempt };
      const cap = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
      const delay = Math.random() * cap;
      if (attempt >= policy.maxAttempts || Date.now() + delay - firstAt > policy.maxAgeMs) {
        return { delivered: false, attempts: attempt };
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
