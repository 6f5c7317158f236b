import type { AslDefinition, RetryPolicy } from "@voxtrail/workflow";
import type { LoadQuotas } from "./load-options";

/**
 * The one retry policy every Task had before the workflow learned to wait (main at cfbe58a,
 * `DEFAULT_RETRY`): transient and throttled errors alike, 3 attempts, 2 s doubling to 30 s, with
 * full jitter: about 14 s in all.
 */
export const BEFORE_WAITING_RETRY: RetryPolicy = {
  intervalSeconds: 2,
  backoffRate: 2,
  maxAttempts: 3,
  maxDelaySeconds: 30,
};

/**
 * `quotas` with the design as it stood before the workflow learned to wait: Transcribe jobs started
 * without queueing, no reserved concurrency in front of Sonic (Synthesize's and
 * SynthesizePrompt's gates gone), and every Task's retries {@link BEFORE_WAITING_RETRY}. The
 * definition keeps today's states (the event-driven wait for Transcribe's job); only what made a
 * burst fail is put back, so a run shows what a burst did to those definitions.
 */
export function beforeWaiting(quotas: LoadQuotas): LoadQuotas {
  const { synthesize: _s, synthesizePrompt: _p, ...reserved } = quotas.lambda.reserved;
  return {
    ...quotas,
    transcribe: { ...quotas.transcribe, queueing: false },
    lambda: { ...quotas.lambda, reserved },
    retry: BEFORE_WAITING_RETRY,
  };
}

/**
 * `definition` with each Task's Retry replaced by one retrier of `policy` over every error name its
 * retriers named: the definitions' retries before retry classes.
 */
export function withOneRetry(definition: AslDefinition, policy: RetryPolicy): AslDefinition {
  const states = Object.fromEntries(
    Object.entries(definition.States).map(([name, state]) => {
      const retriers = state.Retry as Array<{ ErrorEquals: string[] }> | undefined;
      if (!retriers?.length) return [name, state];
      const errors = [...new Set(retriers.flatMap((retrier) => retrier.ErrorEquals))];
      const Retry = [
        {
          ErrorEquals: errors,
          IntervalSeconds: policy.intervalSeconds,
          BackoffRate: policy.backoffRate,
          MaxAttempts: policy.maxAttempts,
          MaxDelaySeconds: policy.maxDelaySeconds,
          JitterStrategy: "FULL",
        },
      ];
      return [name, { ...state, Retry }];
    }),
  );
  return { ...definition, States: states };
}
