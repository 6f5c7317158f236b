import { randomUUID } from "node:crypto";

/**
 * Amazon Transcribe's "Transcribe Job State Change" event as EventBridge delivers it when a batch
 * job ends ("Using Amazon EventBridge with Amazon Transcribe",
 * https://docs.aws.amazon.com/transcribe/latest/dg/monitoring-events.html).
 */
export interface TranscribeJobStateChange {
  version: "0";
  id: string;
  "detail-type": "Transcribe Job State Change";
  source: "aws.transcribe";
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    TranscriptionJobName: string;
    TranscriptionJobStatus: "COMPLETED" | "FAILED";
    FailureReason?: string;
  };
}

/** The event for a job that ended `status` now, in `account` and `region`. */
export function jobStateChange(
  job: {
    TranscriptionJobName: string;
    TranscriptionJobStatus: "COMPLETED" | "FAILED";
    FailureReason?: string;
  },
  account: string,
  region: string,
): TranscribeJobStateChange {
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Transcribe Job State Change",
    source: "aws.transcribe",
    account,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    region,
    resources: [],
    detail: {
      TranscriptionJobName: job.TranscriptionJobName,
      TranscriptionJobStatus: job.TranscriptionJobStatus,
      ...(job.FailureReason === undefined ? {} : { FailureReason: job.FailureReason }),
    },
  };
}
