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
 * Target tracking on SageMaker's high-resolution `ConcurrentRequestsPerModel` metric
 * (https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-add-code-define.html),
 * simplified: the fleet starts at `minInstances`; while invocations in flight exceed
 * `targetConcurrentRequestsPerInstance` x instances for `scaleOutDelayMs` without a break, one
 * instance is added (up to `maxInstances`), and the watch starts again. The delay stands for the
 * metric's 10-second period, the alarm and the new instance's start-up together; there is no
 * scale-in (SageMaker scales in on the slower standard period) and no cooldown.
 */
export interface SonicAutoscaling {
  minInstances: number;
  maxInstances: number;
  /** The target value; below `generationsPerInstance`, or no load could ever exceed it. */
  targetConcurrentRequestsPerInstance: number;
  scaleOutDelayMs: number;
}

/** How much of the capacity was used, for a load report. */
export interface SonicCapacityUse {
  /** The most invocations in flight at once, and the capacity when that peak was reached (`Infinity`: unlimited). */
  inFlight: { peak: number; capacity: number };
  /** Invocations refused for want of capacity (each answered 424 `ModelError`, `OriginalStatusCode` 429). */
  throttled: number;
  /** The instance count at the start and after each scale-out, with when (`Date.now()`); empty when unlimited. */
  instances: Array<{ at: number; count: number }>;
}

/** Frees an invocation's generation slot; calling it again does nothing. */
export type ReleaseGeneration = () => void;

/**
 * The instances behind the local Sonic endpoint: admits an invocation while a generation slot is
 * free, scales out as {@link SonicAutoscaling} says, and keeps the peaks for
 * {@link SonicCapacityUse}. Time is the global `Date.now()` and `setTimeout`, so a fake clock
 * drives the scale-out delay.
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
  #scaleOut: ReturnType<typeof setTimeout> | undefined;

  /** @throws RangeError naming the first setting that is not usable. */
  constructor(private readonly capacity: SonicCapacity | undefined) {
    checkCapacity(capacity);
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
    this.#watch();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      this.#watch();
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

  /** Stops watching the load (a pending scale-out does not happen). */
  stop(): void {
    clearTimeout(this.#scaleOut);
    this.#scaleOut = undefined;
  }

  /** Starts the scale-out delay when the load exceeds the target, and cancels it when it no longer does. */
  #watch(): void {
    const scaling = this.capacity?.autoscaling;
    if (scaling === undefined) return;
    const exceeded =
      this.#inFlight > scaling.targetConcurrentRequestsPerInstance * this.#instances &&
      this.#instances < scaling.maxInstances;
    if (!exceeded) {
      this.stop();
    } else if (this.#scaleOut === undefined) {
      this.#scaleOut = setTimeout(() => {
        this.#scaleOut = undefined;
        this.#instances += 1;
        this.#history.push({ at: Date.now(), count: this.#instances });
        this.#watch();
      }, scaling.scaleOutDelayMs);
    }
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
  if (!(Number.isFinite(scaling.scaleOutDelayMs) && scaling.scaleOutDelayMs >= 0)) {
    throw new RangeError(
      "capacity.autoscaling.scaleOutDelayMs must be a non-negative number of milliseconds",
    );
  }
}
