import type { VoicemailStage } from "./stages";

/**
 * The metrics the stage functions emit (CloudWatch EMF through Powertools Metrics) and the
 * dashboard and alarms read: one home for their namespace, dimensions and names. Dimensions stay
 * bounded: `stage` is a stage's name, never a prompt's or a job's; `environment` is the stage
 * environment (a default dimension); job ids go in metadata.
 */
export const PIPELINE_METRICS = {
  namespace: "voxtrail",
  service: "voxtrail",
  dimensions: ["environment", "provider", "service", "stage"],
} as const;

/** Each voicemail stage's duration (handler start -> its output durable): a timing and a metric. */
export const STAGE_DURATION_METRICS = {
  Ingest: "ingest.duration",
  Transcribe: "transcribe.duration",
  Reason: "reason.duration",
  Synthesize: "synthesize.duration",
  Finalize: "finalize.duration",
} as const satisfies Record<VoicemailStage, string>;

/** The metrics only an attempt's record gives, beside its timings. */
export const ATTEMPT_METRICS = {
  /** One per failed attempt. */
  failed: "stage.failed",
  /** Time to first audio byte of a synthesis (request sent -> first audio chunk). */
  ttfb: "synthesize.ttfb",
  /** Synthesis streams open in the process when this one began. */
  activeStreams: "synthesize.activeStreams",
  /** Gaps between audio chunks over the stall threshold. */
  stalls: "synthesize.stalls",
  /** Synthesis time over audio duration. */
  rtf: "synthesize.rtf",
} as const;
