import type { StageHandler } from "@voxtrail/functions";

/** The error Step Functions reports when Lambda throttles an invocation (RETRY_CLASSES.throttled retries it). */
export const LAMBDA_THROTTLED = "Lambda.TooManyRequestsException";

/** Lambda's concurrency as a stage has it: the account's, and the functions that reserve some. */
export interface LambdaConcurrency {
  /** Concurrent executions of the account and Region (SERVICE_QUOTAS.lambda.concurrentExecutions: 1,000). */
  account: number;
  /**
   * Reserved concurrency by function (production: Synthesize 18, `synthesisGates`), and the
   * reservations of functions outside this workflow, which the account's pool loses all the same
   * (SynthesizePrompt 6, the lineage index compaction 1: stacks/prompts.ts, stacks/lineage-index.ts).
   */
  reserved: Record<string, number>;
}

/** One gate's use: the most invocations in flight at once, its limit, and invocations refused. */
export interface GateUse {
  name: string;
  peak: number;
  limit: number;
  throttled: number;
}

/** A Lambda throttle as the invoking service sees it. */
class LambdaThrottled extends Error {
  constructor(functionName: string) {
    super(`Rate Exceeded. (${functionName}: no concurrency left)`);
    this.name = LAMBDA_THROTTLED;
  }
}

/** A concurrency limit: admits while in-flight invocations are below it. */
class Gate {
  inFlight = 0;
  peak = 0;
  throttled = 0;
  constructor(
    readonly name: string,
    readonly limit: number,
  ) {}

  tryEnter(): boolean {
    if (this.inFlight >= this.limit) {
      this.throttled += 1;
      return false;
    }
    this.inFlight += 1;
    this.peak = Math.max(this.peak, this.inFlight);
    return true;
  }

  leave(): void {
    this.inFlight -= 1;
  }

  use(): GateUse {
    return { name: this.name, peak: this.peak, limit: this.limit, throttled: this.throttled };
  }
}

/**
 * Lambda's concurrency limits around the stage's handlers: a function with reserved concurrency
 * runs at most that many invocations at once; every other function shares the account's
 * unreserved pool (its concurrency less every reservation). An invocation beyond its limit is
 * refused before the handler runs with an error named {@link LAMBDA_THROTTLED}, as Step Functions
 * names Lambda's throttling, so the workflow's Retry (RETRY_CLASSES.throttled) waits it out.
 * ("Lambda function scaling" and "Configuring reserved concurrency", Lambda developer guide.)
 *
 * In a load run a handler holds its slot for as long as it runs in virtual time: for the waits it
 * makes (Sonic's generation pace), not for its CPU or disk time, which take no virtual time.
 *
 * @example
 * const gates = new LambdaGates({ account: 1000, reserved: { synthesize: 18 } });
 * const handler = gates.wrap("synthesize", handlers.synthesize);
 */
export class LambdaGates {
  readonly #unreserved: Gate;
  readonly #reserved = new Map<string, Gate>();

  constructor(concurrency: LambdaConcurrency) {
    const reservations = Object.values(concurrency.reserved).reduce((sum, n) => sum + n, 0);
    if (reservations >= concurrency.account) {
      throw new RangeError("reserved concurrency must leave some of the account's concurrency unreserved");
    }
    this.#unreserved = new Gate("unreserved", concurrency.account - reservations);
    for (const [fn, limit] of Object.entries(concurrency.reserved)) {
      this.#reserved.set(fn, new Gate(`reserved:${fn}`, limit));
    }
  }

  /** `handler` behind the limit of `functionName`. */
  wrap(functionName: string, handler: StageHandler<unknown>): StageHandler<unknown> {
    const gate = this.#reserved.get(functionName) ?? this.#unreserved;
    return async (event, context) => {
      if (!gate.tryEnter()) throw new LambdaThrottled(functionName);
      try {
        return await handler(event, context);
      } finally {
        gate.leave();
      }
    };
  }

  /** Every gate's use: the unreserved pool first, then each reservation. */
  use(): GateUse[] {
    return [this.#unreserved.use(), ...[...this.#reserved.values()].map((gate) => gate.use())];
  }
}
