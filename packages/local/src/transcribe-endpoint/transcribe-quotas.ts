/**
 * The Amazon Transcribe quotas the local endpoint enforces, each with AWS's default in
 * {@link AWS_TRANSCRIBE_QUOTAS} (Developer Guide, "Guidelines and quotas",
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
  /** `StartTranscriptionJob` transactions per second (25); `Infinity`: not enforced. */
  startTranscriptionJobPerSecond: number;
  /** `GetTranscriptionJob` transactions per second (30); `Infinity`: not enforced. */
  getTranscriptionJobPerSecond: number;
}

/** AWS's defaults, as the pages cited on {@link TranscribeQuotas} give them: what a load rehearsal passes. */
export const AWS_TRANSCRIBE_QUOTAS: Readonly<TranscribeQuotas> = {
  concurrentJobs: 250,
  queueBandwidthRatio: 0.9,
  queuedJobs: 10_000,
  startTranscriptionJobPerSecond: 25,
  getTranscriptionJobPerSecond: 30,
};

/**
 * What the endpoint enforces unless told otherwise: AWS's job quotas, and no request rate. Local
 * state machines poll with waits far shorter than a deployed one's (1 ms in
 * `test/integration/transcription-job.test.ts`), which AWS's rates would throttle.
 */
export const DEFAULT_TRANSCRIBE_QUOTAS: Readonly<TranscribeQuotas> = {
  ...AWS_TRANSCRIBE_QUOTAS,
  startTranscriptionJobPerSecond: Number.POSITIVE_INFINITY,
  getTranscriptionJobPerSecond: Number.POSITIVE_INFINITY,
};

/** How much of one limited quantity was used at most, for a load report. */
export interface QuotaUse {
  /** The quota's name, e.g. `concurrentJobs`. */
  name: string;
  /** The most used at any one time (for rates: the most requests admitted in one clock second). */
  peak: number;
  /** The quota. */
  limit: number;
  /** For rates: the most requests that arrived in one clock second, refused ones included. */
  demand?: number;
  /** For rates: the requests refused. */
  refused?: number;
}

/**
 * {@link DEFAULT_TRANSCRIBE_QUOTAS} with `overrides` applied.
 *
 * @throws RangeError naming the first setting that is not a usable quota.
 * @example
 * const quotas = transcribeQuotas({ concurrentJobs: 2 });
 */
export function transcribeQuotas(overrides: Partial<TranscribeQuotas> = {}): TranscribeQuotas {
  const quotas = { ...DEFAULT_TRANSCRIBE_QUOTAS, ...overrides };
  const { concurrentJobs, queuedJobs, queueBandwidthRatio } = quotas;
  for (const [name, value] of Object.entries({ concurrentJobs, queuedJobs })) {
    if (!(Number.isInteger(value) && value >= 1))
      throw new RangeError(`quotas.${name} must be a positive integer`);
  }
  if (!(queueBandwidthRatio > 0 && queueBandwidthRatio <= 1)) {
    throw new RangeError("quotas.queueBandwidthRatio must be in (0, 1]");
  }
  const { startTranscriptionJobPerSecond, getTranscriptionJobPerSecond } = quotas;
  for (const [name, value] of Object.entries({
    startTranscriptionJobPerSecond,
    getTranscriptionJobPerSecond,
  })) {
    if (!(value >= 1)) throw new RangeError(`quotas.${name} must be at least 1 (Infinity: not enforced)`);
  }
  return quotas;
}
