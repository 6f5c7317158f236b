import { randomUUID } from "node:crypto";

/**
 * The event Amazon Transcribe sends to EventBridge when a transcription job ends `COMPLETED` or
 * `FAILED`: source `aws.transcribe`, detail-type `Transcribe Job State Change`, the job's name and
 * status in `detail` (https://docs.aws.amazon.com/transcribe/latest/dg/monitoring-events.html,
 * https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-transcribe.html), in EventBridge's
 * envelope (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html).
 */
export interface TranscribeJobStateChangeEvent {
  version: "0";
  id: string;
  "detail-type": "Transcribe Job State Change";
  source: "aws.transcribe";
  account: string;
  /** When the job ended, ISO 8601 to the second, as EventBridge writes it: `2026-12-06T11:24:13Z`. */
  time: string;
  region: string;
  resources: string[];
  detail: {
    TranscriptionJobName: string;
    TranscriptionJobStatus: "COMPLETED" | "FAILED";
    /** Why the job failed (`FAILED` only). */
    FailureReason?: string;
  };
}

/** A job as it ended: what its state-change event carries. */
export interface EndedJob {
  TranscriptionJobName: string;
  TranscriptionJobStatus: "COMPLETED" | "FAILED";
  FailureReason?: string;
}

/**
 * The `Transcribe Job State Change` event for `job`, at the global `Date.now()`.
 *
 * @example
 * onJobStateChange(jobStateChangeEvent(job, "000000000000", "us-east-1"));
 */
export function jobStateChangeEvent(
  job: EndedJob,
  account: string,
  region: string,
): TranscribeJobStateChangeEvent {
  const { TranscriptionJobName, TranscriptionJobStatus, FailureReason } = job;
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Transcribe Job State Change",
    source: "aws.transcribe",
    account,
    time: new Date(Date.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
    region,
    resources: [],
    detail: {
      TranscriptionJobName,
      TranscriptionJobStatus,
      ...(TranscriptionJobStatus === "FAILED" && FailureReason !== undefined ? { FailureReason } : {}),
    },
  };
}
