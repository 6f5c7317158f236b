/**
 * The Amazon Transcribe quotas the local endpoint enforces, each a default of the service's own
 * (Developer Guide, "Guidelines and quotas",
 * https://docs.aws.amazon.com/transcribe/latest/dg/limits-guidelines.html, and "Job queueing",
 * https://docs.aws.amazon.com/transcribe/latest/dg/job-queueing.html). All are adjustable in AWS,
 * so all are options here.
 */
export interface TranscribeQuotas {
  /** Batch transcription jobs running at once ("Number of concurrent batch transcription jobs": 250). */
  concurrentJobs: number;
  /** Share of `concurrentJobs` that jobs started from the queue may use ("Job queue bandwidth ratio": 0.9). */
  queueBandwidthRatio: number;
  /** Jobs waiting in the queue ("You can add up to 10,000 jobs to your queue"). */
  queuedJobs: number;
  /** `StartTranscriptionJob` transactions per second (25). */
  startTranscriptionJobPerSecond: number;
  /** `GetTranscriptionJob` transactions per second (30). */
  getTranscriptionJobPerSecond: number;
}

/** The defaults, as the AWS pages cited on {@link TranscribeQuotas} give them. */
export const DEFAULT_TRANSCRIBE_QUOTAS: Readonly<TranscribeQuotas> = {
  concurrentJobs: 250,
  queueBandwidthRatio: 0.9,
  queuedJobs: 10_000,
  startTranscriptionJobPerSecond: 25,
  getTranscriptionJobPerSecond: 30,
};

/** How much of one limited quantity was used at most, for a load report. */
export interface QuotaUse {
  /** The quota's name, e.g. `concurrentJobs`. */
  name: string;
  /** The most used at any one time (for rates: the most requests that arrived in one clock second). */
  peak: number;
  /** The quota. */
  limit: number;
}

/**
 * `DEFAULT_TRANSCRIBE_QUOTAS` with `overrides` applied.
 *
 * @throws RangeError naming the first setting that is not a usable quota.
 * @example
 * const quotas = transcribeQuotas({ concurrentJobs: 2 });
 */
export function transcribeQuotas(overrides: Partial<TranscribeQuotas> = {}): TranscribeQuotas {
  const quotas = { ...DEFAULT_TRANSCRIBE_QUOTAS, ...overrides };
  for (const [name, value] of Object.entries(quotas)) {
    const usable =
      name === "queueBandwidthRatio" ? value > 0 && value <= 1 : Number.isInteger(value) && value >= 1;
    if (!usable) {
      throw new RangeError(
        name === "queueBandwidthRatio"
          ? "quotas.queueBandwidthRatio must be in (0, 1]"
          : `quotas.${name} must be a positive integer`,
      );
    }
  }
  return quotas;
}
