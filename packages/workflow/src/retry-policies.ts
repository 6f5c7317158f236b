import { THROTTLED_ERROR_NAMES, TRANSIENT_ERROR_NAMES } from "@voxtrail/core";

/** How errors of one class are retried: exponential backoff with full jitter, capped. */
export interface RetryPolicy {
  intervalSeconds: number;
  backoffRate: number;
  maxAttempts: number;
  maxDelaySeconds: number;
}

/**
 * Every class of error a Task retries, with its policy: the one place a retry horizon is named.
 *
 * - `throttled`: a service said it has no capacity now (Transcribe's request rate or queue, the
 *   Sonic endpoint's 429 surfaced as `ModelError`, Bedrock's throttling, Lambda's
 *   `TooManyRequestsException` when a function's reserved concurrency is in use). Waiting is the
 *   cure, so these wait long: 2 s doubling to a 60 s cap, 125 attempts, about 2 hours at most
 *   (1 hour on average with full jitter). In a burst these retries are the queue in front of each
 *   quota, so the cap is short: a capacity freed is taken within half a minute on average. With a
 *   300 s cap (30 attempts), a 1,000-voicemail burst drained in 2.6x the least its quotas allow
 *   and Sonic was busy 38% of the time; with 60 s, 1.3x and 77% (`npm run load`,
 *   docs/load-rehearsal.md). A burst larger than the gates serve in the horizon fails with the
 *   throttle's own name, which the job report and `voxtrail run` list.
 * - `transient`: a fault that a quick retry cures (a stream cut mid-reply, Lambda's own service
 *   errors): 3 attempts over about 14 s.
 *
 * Step Functions applies `JitterStrategy: "FULL"` (a random wait between 0 and the backoff), so
 * retries of a burst spread out instead of arriving together (the Step Functions developer guide,
 * "Handling errors in Step Functions workflows", Retry fields).
 */
export const RETRY_CLASSES = {
  throttled: {
    errors: THROTTLED_ERROR_NAMES,
    policy: { intervalSeconds: 2, backoffRate: 2, maxAttempts: 125, maxDelaySeconds: 60 },
  },
  transient: {
    errors: TRANSIENT_ERROR_NAMES,
    policy: { intervalSeconds: 2, backoffRate: 2, maxAttempts: 3, maxDelaySeconds: 30 },
  },
} as const satisfies Record<string, { errors: readonly string[]; policy: RetryPolicy }>;

/** The policy of quick retries, for Tasks whose own errors are only transient ones. */
export const DEFAULT_RETRY: RetryPolicy = RETRY_CLASSES.transient.policy;

/**
 * The longest a job can spend retrying one error class under `policy`: the sum of every wait's
 * cap (full jitter waits between 0 and it), in seconds.
 *
 * @example
 * retryHorizonSeconds(RETRY_CLASSES.throttled.policy); // 7262
 */
export function retryHorizonSeconds(policy: RetryPolicy): number {
  let total = 0;
  for (let attempt = 0; attempt < policy.maxAttempts; attempt += 1) {
    total += Math.min(policy.intervalSeconds * policy.backoffRate ** attempt, policy.maxDelaySeconds);
  }
  return total;
}

/**
 * A Retry rule for `errorNames` under `policy`: exponential backoff with full jitter, capped.
 *
 * @example
 * { Type: "Task", Retry: [retrier(DEFAULT_RETRY, ["States.TaskFailed"])], ... }
 */
export function retrier(policy: RetryPolicy, errorNames: readonly string[]) {
  return {
    ErrorEquals: [...errorNames],
    IntervalSeconds: policy.intervalSeconds,
    BackoffRate: policy.backoffRate,
    MaxAttempts: policy.maxAttempts,
    MaxDelaySeconds: policy.maxDelaySeconds,
    JitterStrategy: "FULL",
  };
}

/**
 * The Retry rules of a Task that invokes one of our functions: one rule per error class, each
 * with its own policy, in {@link RETRY_CLASSES} order.
 *
 * @example
 * { Type: "Task", Resource: functionArn, Retry: functionRetries(), ... }
 */
export function functionRetries(): ReturnType<typeof retrier>[] {
  return Object.values(RETRY_CLASSES).map(({ errors, policy }) => retrier(policy, errors));
}
