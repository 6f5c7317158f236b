/**
 * Failures the local Transcribe endpoint can be told to show, each as Amazon Transcribe shows it:
 * for tests of how the workflow copes. None by default.
 *
 * @example
 * await startTranscribeEndpoint({ store, faults: { loseStartAnswers: 1, throttleGets: 2 } });
 */
export interface TranscribeEndpointFaults {
  /**
   * The first N `StartTranscriptionJob` requests start their job, then answer 500
   * `InternalFailureException`, as if the answer were lost: the caller's retry meets the job.
   */
  loseStartAnswers?: number;
  /** The first N `GetTranscriptionJob` requests answer 400 `LimitExceededException`. */
  throttleGets?: number;
  /** Every `StartTranscriptionJob` is refused with 400 `BadRequestException` and this message. */
  refuseStarts?: string;
  /** Every job ends `FAILED` with this reason instead of being transcribed. */
  failJobsWith?: string;
  /** Jobs never end: they stay `IN_PROGRESS`. */
  stallJobs?: boolean;
}
