/**
 * The endpoint's capacity, as a SageMaker endpoint of Sonic containers has it: `instances`, each
 * generating at most `generationsPerInstance` streams at once. Unset, capacity is unlimited.
 */
export interface SonicCapacity {
  /** Streams one instance generates at once. */
  generationsPerInstance: number;
  /** A fixed instance count (without `autoscaling`). */
  instances?: number;
  /** Instances that follow the load (instead of `instances`). */
  autoscaling?: SonicAutoscaling;
}

/**
 * Target tracking on SageMaker's high-resolution `ConcurrentRequestsPerModel` metric (predefined
 * metric type `SageMakerVariantConcurrentRequestsPerModelHighResolution`), as AWS documents it:
 *
 * - The metric is the requests in flight per instance (the stand-in spreads them evenly, as
 *   `LEAST_OUTSTANDING_REQUESTS` routing roughly does), aggregated per `metricPeriodMs` with the
 *   Maximum statistic: the metric emits every 10 s and its valid statistics are Min and Max
 *   (https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-add-code-define.html,
 *   https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html).
 * - The policy's alarm fires when `alarmDatapoints` datapoints in a row are above the target; the
 *   stand-in acts again at each further breaching datapoint while the alarm stays in ALARM.
 * - Application Auto Scaling then sets the desired count in proportion to the metric,
 *   ceil(instances in service x metric / target), capped at `maxInstances`
 *   (https://docs.aws.amazon.com/autoscaling/application/userguide/target-tracking-scaling-policy-overview.html).
 * - The new instances serve `instanceStartupMs` later. Until then the endpoint is `Updating`
 *   (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UpdateEndpointWeightsAndCapacities.html)
 *   and no further scale-out starts. The policy's scale-out cooldown counts the capacity just added
 *   and lets a larger scale-out through
 *   (https://docs.aws.amazon.com/autoscaling/application/APIReference/API_TargetTrackingScalingPolicyConfiguration.html);
 *   every later proportional step is larger, so the cooldown adds no wait here.
 * - No scale-in: SageMaker scales in at the standard metric's slower pace, longer than a load run
 *   needs to model.
 *
 * Unset timings take {@link SAGEMAKER_SCALE_OUT}'s.
 */
export interface SonicAutoscaling {
  minInstances: number;
  maxInstances: number;
  /** The target value; below `generationsPerInstance`, or no load could ever exceed it. */
  targetConcurrentRequestsPerInstance: number;
  /** The metric's period: one datapoint each. */
  metricPeriodMs?: number;
  /** Breaching datapoints in a row that put the scale-out alarm in ALARM. */
  alarmDatapoints?: number;
  /** From the alarm's scale-out until the new instances serve. */
  instanceStartupMs?: number;
}

/**
 * The timings SageMaker's autoscaling takes when {@link SonicAutoscaling} leaves them unset.
 * `metricPeriodMs`: the high-resolution metric's 10 s (SageMaker's "Define a scaling policy").
 * `alarmDatapoints`: 3, the datapoints target tracking's managed scale-out alarm needs in a row
 * (AWS's pages name no figure for the 10-second alarm; 3 of 3 is what its 60-second alarms are
 * reported to use, hashicorp/terraform-provider-aws#42553). `instanceStartupMs`: 5 minutes for a GPU
 * instance to start and load Sonic, a guess (AWS publishes none): replace it with a measured one.
 */
const SAGEMAKER_SCALE_OUT = { metricPeriodMs: 10_000, alarmDatapoints: 3, instanceStartupMs: 300_000 };

/** How much of the capacity was used, for a load report. */
export interface SonicCapacityUse {
  /** The most invocations in flight at once, and the capacity when that peak was reached (`Infinity`: unlimited). */
  inFlight: { peak: number; capacity: number };
  /** Invocations refused for want of capacity (each answered 424 `ModelError`, `OriginalStatusCode` 429). */
  throttled: number;
  /** The instances in service at the start and after each scale-out, with when (`Date.now()`); empty when unlimited. */
  instances: Array<{ at: number; count: number }>;
}

/** Frees an invocation's generation slot; calling it again does nothing. */
export type ReleaseGeneration = () => void;

/**
 * The instances behind the local Sonic endpoint: admits an invocation while a generation slot is
 * free, scales out as {@link SonicAutoscaling} says, and keeps the peaks for
 * {@link SonicCapacityUse}. Time is the global `Date.now()` and `setTimeout`, so a fake clock
 * drives the metric's periods and the start-up; the period timer runs only while there is load,
 * and {@link SonicFleet.stop} clears every timer.
 *
 * @example
 * const release = fleet.admit();
 * if (release === undefined) return modelErrorResponse(res, 429, ...);
 * res.on("close", release);
 */
export class SonicFleet {
  #instances: number;
  #inFlight = 0;
  #peak = 0;
  #capacityAtPeak: number;
  #throttled = 0;
  readonly #history: Array<{ at: number; count: number }> = [];
  readonly #scaling: Required<SonicAutoscaling> | undefined;
  /** The metric's maximum so far in the current period. */
  #periodMax = 0;
  /** Breaching datapoints in a row. */
  #breaching = 0;
  #period: ReturnType<typeof setTimeout> | undefined;
  /** The scale-out in progress: its instances are starting. */
  #startup: ReturnType<typeof setTimeout> | undefined;

  /** @throws RangeError naming the first setting that is not usable. */
  constructor(private readonly capacity: SonicCapacity | undefined) {
    checkCapacity(capacity);
    this.#scaling = capacity?.autoscaling && { ...SAGEMAKER_SCALE_OUT, ...capacity.autoscaling };
    this.#instances = capacity?.autoscaling?.minInstances ?? capacity?.instances ?? 0;
    this.#capacityAtPeak = this.#capacity;
    if (capacity) this.#history.push({ at: Date.now(), count: this.#instances });
  }

  get #capacity(): number {
    return this.capacity ? this.#instances * this.capacity.generationsPerInstance : Number.POSITIVE_INFINITY;
  }

  /** A slot for one invocation, or `undefined` when every slot is taken. */
  admit(): ReleaseGeneration | undefined {
    if (this.#inFlight >= this.#capacity) {
      this.#throttled += 1;
      return undefined;
    }
    this.#inFlight += 1;
    if (this.#inFlight > this.#peak) {
      this.#peak = this.#inFlight;
      this.#capacityAtPeak = this.#capacity;
    }
    this.#sample();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
    };
  }

  /** The peaks so far. */
  use(): SonicCapacityUse {
    return {
      inFlight: { peak: this.#peak, capacity: this.#capacityAtPeak },
      throttled: this.#throttled,
      instances: this.#history.map((entry) => ({ ...entry })),
    };
  }

  /** Stops watching the load: clears the metric's timer, and a scale-out in progress does not finish. */
  stop(): void {
    clearTimeout(this.#period);
    clearTimeout(this.#startup);
    this.#period = undefined;
    this.#startup = undefined;
    this.#breaching = 0;
  }

  /** Folds the invocations in flight per instance into the period's maximum, starting the period timer if idle. */
  #sample(): void {
    const scaling = this.#scaling;
    if (scaling === undefined) return;
    const perInstance = this.#inFlight / this.#instances;
    if (this.#period === undefined) {
      this.#periodMax = perInstance;
      this.#schedulePeriodEnd(scaling.metricPeriodMs);
    } else {
      this.#periodMax = Math.max(this.#periodMax, perInstance);
    }
  }

  /** Periods are aligned on the clock, as CloudWatch's are. */
  #schedulePeriodEnd(periodMs: number): void {
    const now = Date.now();
    const end = (Math.floor(now / periodMs) + 1) * periodMs;
    this.#period = setTimeout(() => this.#endPeriod(), end - now);
  }

  /** Emits the period's datapoint, scales out when the alarm fires, and stops once a whole period was idle. */
  #endPeriod(): void {
    const scaling = this.#scaling as Required<SonicAutoscaling>;
    const datapoint = this.#periodMax;
    this.#breaching = datapoint > scaling.targetConcurrentRequestsPerInstance ? this.#breaching + 1 : 0;
    if (this.#breaching >= scaling.alarmDatapoints) this.#scaleOut(datapoint, scaling);
    this.#periodMax = this.#inFlight / this.#instances;
    if (datapoint === 0 && this.#inFlight === 0) {
      this.#period = undefined;
    } else {
      this.#schedulePeriodEnd(scaling.metricPeriodMs);
    }
  }

  /** Sets the desired count in proportion to the datapoint, unless a scale-out is in progress. */
  #scaleOut(datapoint: number, scaling: Required<SonicAutoscaling>): void {
    if (this.#startup !== undefined) return;
    // The epsilon keeps a float product such as 3 x (7 / 3) from rounding up a whole instance.
    const proportional = Math.ceil(
      (this.#instances * datapoint) / scaling.targetConcurrentRequestsPerInstance - 1e-9,
    );
    const desired = Math.min(scaling.maxInstances, proportional);
    if (desired <= this.#instances) return;
    this.#startup = setTimeout(() => {
      this.#startup = undefined;
      this.#instances = desired;
      this.#history.push({ at: Date.now(), count: desired });
    }, scaling.instanceStartupMs);
  }
}

function checkCapacity(capacity: SonicCapacity | undefined): void {
  if (capacity === undefined) return;
  const positive = (name: string, value: number | undefined) => {
    if (!(Number.isInteger(value) && (value as number) >= 1)) {
      throw new RangeError(`capacity.${name} must be a positive integer`);
    }
  };
  positive("generationsPerInstance", capacity.generationsPerInstance);
  const scaling = capacity.autoscaling;
  if ((scaling === undefined) === (capacity.instances === undefined)) {
    throw new RangeError("capacity needs either instances or autoscaling");
  }
  if (scaling === undefined) {
    positive("instances", capacity.instances);
    return;
  }
  positive("autoscaling.minInstances", scaling.minInstances);
  positive("autoscaling.maxInstances", scaling.maxInstances);
  if (scaling.maxInstances < scaling.minInstances) {
    throw new RangeError("capacity.autoscaling.maxInstances must not be below minInstances");
  }
  const target = scaling.targetConcurrentRequestsPerInstance;
  if (!(target > 0 && target < capacity.generationsPerInstance)) {
    throw new RangeError(
      "capacity.autoscaling.targetConcurrentRequestsPerInstance must be above 0 and below generationsPerInstance",
    );
  }
  positive("autoscaling.metricPeriodMs", scaling.metricPeriodMs ?? SAGEMAKER_SCALE_OUT.metricPeriodMs);
  positive("autoscaling.alarmDatapoints", scaling.alarmDatapoints ?? SAGEMAKER_SCALE_OUT.alarmDatapoints);
  const startup = scaling.instanceStartupMs;
  if (startup !== undefined && !(Number.isFinite(startup) && startup >= 0)) {
    throw new RangeError(
      "capacity.autoscaling.instanceStartupMs must be a non-negative number of milliseconds",
    );
  }
}
