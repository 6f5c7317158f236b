import { ServiceError } from "./json-protocol";
import type { QuotaUse, TranscribeQuotas } from "./transcribe-quotas";

/** Frees a job's slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * Amazon Transcribe's concurrent-jobs quota and its job queue
 * (https://docs.aws.amazon.com/transcribe/latest/dg/job-queueing.html): at most `concurrentJobs`
 * jobs run at once. Beyond that, a job started without queueing is refused with 400
 * `LimitExceededException` (as `JobExecutionSettings.AllowDeferredExecution` documents); one started
 * with queueing waits in a FIFO queue of at most `queuedJobs` (beyond: 400
 * `LimitExceededConcurrentJobException`, the name the guide gives), and jobs from the queue use at
 * most `queueBandwidthRatio` of the slots (at least one), leaving the rest to jobs started directly.
 * A queueing job also waits while others are queued ahead of it, so the queue stays FIFO.
 *
 * @example
 * const outcome = slots.acquire(deferrable, (release) => run(job).finally(release));
 * // outcome: "started", or "queued" (run is called once a slot frees)
 */
export class JobSlots {
  readonly #queue: Array<(release: ReleaseSlot) => void> = [];
  #running = 0;
  #runningFromQueue = 0;
  #peakRunning = 0;
  #peakQueued = 0;
  #peakFromQueue = 0;

  constructor(private readonly quotas: TranscribeQuotas) {}

  /** Slots that jobs from the queue may hold at once. */
  get #queueSlots(): number {
    return Math.max(1, Math.floor(this.quotas.concurrentJobs * this.quotas.queueBandwidthRatio));
  }

  /**
   * Runs `start` now with a slot, or queues it when `deferrable` and no slot is free to it.
   *
   * @throws ServiceError `LimitExceededException` (no slot, not deferrable) or
   *   `LimitExceededConcurrentJobException` (the queue is full).
   */
  acquire(deferrable: boolean, start: (release: ReleaseSlot) => void): "started" | "queued" {
    const free = this.#running < this.quotas.concurrentJobs;
    if (free && (!deferrable || this.#queue.length === 0)) {
      this.#occupy(false, start);
      return "started";
    }
    if (!deferrable) {
      throw new ServiceError(
        400,
        "LimitExceededException",
        "You've either sent too many requests or your input file is too long. Wait before retrying your request, or use a smaller file and try your request again.",
      );
    }
    if (this.#queue.length >= this.quotas.queuedJobs) {
      throw new ServiceError(
        400,
        "LimitExceededConcurrentJobException",
        "The job queue is full: it holds at most the quota of queued jobs.",
      );
    }
    this.#queue.push(start);
    this.#peakQueued = Math.max(this.#peakQueued, this.#queue.length);
    return "queued";
  }

  /** Running jobs, queued jobs and queue bandwidth: each one's peak against its limit. */
  use(): QuotaUse[] {
    return [
      { name: "concurrentJobs", peak: this.#peakRunning, limit: this.quotas.concurrentJobs },
      { name: "queuedJobs", peak: this.#peakQueued, limit: this.quotas.queuedJobs },
      { name: "queueBandwidth", peak: this.#peakFromQueue, limit: this.#queueSlots },
    ];
  }

  #occupy(fromQueue: boolean, start: (release: ReleaseSlot) => void): void {
    this.#running += 1;
    this.#peakRunning = Math.max(this.#peakRunning, this.#running);
    if (fromQueue) {
      this.#runningFromQueue += 1;
      this.#peakFromQueue = Math.max(this.#peakFromQueue, this.#runningFromQueue);
    }
    let released = false;
    start(() => {
      if (released) return;
      released = true;
      this.#running -= 1;
      if (fromQueue) this.#runningFromQueue -= 1;
      this.#startQueued();
    });
  }

  /** Starts queued jobs, first in first out, while slots are free to them. */
  #startQueued(): void {
    while (
      this.#queue.length > 0 &&
      this.#running < this.quotas.concurrentJobs &&
      this.#runningFromQueue < this.#queueSlots
    ) {
      this.#occupy(true, this.#queue.shift() as (release: ReleaseSlot) => void);
    }
  }
}
