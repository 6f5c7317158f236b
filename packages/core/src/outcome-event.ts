import * as z from "zod/mini";
import { JobOutcome } from "./job-report";

/** The EventBridge `source` of the events voxtrail emits. */
export const EVENT_SOURCE = "voxtrail";

/** `detail-type` of a job outcome event, by outcome. */
export const OUTCOME_DETAIL_TYPES = {
  succeeded: "Voicemail Job Succeeded",
  failed: "Voicemail Job Failed",
} as const;

/** The detail of a job outcome event: pointers and names only, never caller data. */
export const OutcomeDetail = z.object({
  jobId: z.string(),
  outcome: JobOutcome,
  report: z.object({ uri: z.string(), sha256: z.string() }),
  failedStage: z.optional(z.string()),
  errorName: z.optional(z.string()),
});
export type OutcomeDetail = z.infer<typeof OutcomeDetail>;

/** Announces job outcomes: to an EventBridge bus in AWS, to the store locally. */
export interface EventPublisher {
  /** Publishes one event and returns its id. */
  publish(detailType: string, detail: OutcomeDetail): Promise<string>;
}
