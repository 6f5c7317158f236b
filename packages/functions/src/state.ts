import { ArtifactRef, InvalidInput, SourceRef, Timing } from "@voxtrail/core";
import { z } from "zod";

/** The facts of the execution, from the Step Functions context object. */
export const ExecutionInfo = z.object({ id: z.string(), startTime: z.string() });
export type ExecutionInfo = z.infer<typeof ExecutionInfo>;

/** S3 "Object Created" as EventBridge delivers it: only the fields the pipeline reads. */
export const ObjectCreatedEvent = z.object({
  source: z.literal("aws.s3"),
  "detail-type": z.literal("Object Created"),
  time: z.string(),
  detail: z.object({
    bucket: z.object({ name: z.string() }),
    object: z.object({
      key: z.string(),
      size: z.number().optional(),
      etag: z.string().optional(),
      /** moto's S3 events spell the etag this way (DESIGN.md); AWS's say `etag`. */
      eTag: z.string().optional(),
      "version-id": z.string().optional(),
    }),
    /** The S3 API call that created the object (`PutObject`, `CopyObject`, ...): only S3's own events have it. */
    reason: z.string().optional(),
  }),
});
export type ObjectCreatedEvent = z.infer<typeof ObjectCreatedEvent>;

/**
 * The object key an event names, as S3's API takes it. Decision: an event S3 wrote (it has
 * `detail.reason`) is form-decoded (`+` to space, then UTF-8 percent-escapes), because S3 documents
 * that encoding for its notifications ("red flower.jpg" becomes "red+flower.jpg") and Powertools for
 * AWS Lambda (Python) `unquote_plus`es the EventBridge key too, though AWS's EventBridge page is
 * silent; an event without `reason` (the voicemail batch workflow builds one from manifest keys)
 * is taken as it is.
 *
 * @throws InvalidInput when an S3 event's key is not valid form encoding (naming the problem, not the key).
 *
 * @example
 * objectKeyOf({ ...event, detail: { ...event.detail, object: { key: "incoming/voicemail/a+b%2Bc.wav" }, reason: "PutObject" } });
 * // "incoming/voicemail/a b+c.wav"
 */
export function objectKeyOf(event: Pick<ObjectCreatedEvent, "detail">): string {
  const { key } = event.detail.object;
  if (event.detail.reason === undefined) return key;
  if (/%(?![0-9A-Fa-f]{2})/.test(key)) {
    throw new InvalidInput(
      "the S3 event's object key is not URL-encoded: a '%' is not followed by two hex digits",
    );
  }
  try {
    return decodeURIComponent(key.replaceAll("+", " "));
  } catch {
    throw new InvalidInput("the S3 event's object key is not URL-encoded: its percent-escapes are not UTF-8");
  }
}

/** The source identity an event names: the same for Ingest and the failure recorder. */
export function sourceIdentityOf(event: ObjectCreatedEvent) {
  const { bucket, object } = event.detail;
  const etag = object.etag ?? object.eTag;
  return {
    bucket: bucket.name,
    key: objectKeyOf(event),
    ...(object["version-id"] ? { versionId: object["version-id"] } : {}),
    ...(etag ? { etag } : {}),
  };
}

/** Input of Ingest: the event that started the execution, and the execution. */
export const IngestInput = z.object({ event: ObjectCreatedEvent, execution: ExecutionInfo });
export type IngestInput = z.infer<typeof IngestInput>;

/** The job as every later stage sees it: written by Ingest, pointers only. */
export const JobState = z.object({
  jobId: z.string(),
  source: SourceRef,
  audioMs: z.number().nonnegative(),
  eventTime: z.string(),
  execution: ExecutionInfo,
  normalizedAudio: ArtifactRef,
  timings: z.array(Timing),
});
export type JobState = z.infer<typeof JobState>;

/** Transcribe's result, at `$.transcribe`. */
export const TranscribeResult = z.object({ transcript: ArtifactRef, timings: z.array(Timing) });
export type TranscribeResult = z.infer<typeof TranscribeResult>;

/** Reason's result, at `$.reason`. */
export const ReasonResult = z.object({
  record: ArtifactRef,
  replyText: ArtifactRef,
  timings: z.array(Timing),
});
export type ReasonResult = z.infer<typeof ReasonResult>;

/** Synthesize's result, at `$.synthesize`: `rtf` is synthesis time over reply duration. */
export const SynthesizeResult = z.object({
  replyAudio: ArtifactRef,
  audioMs: z.number().nonnegative(),
  rtf: z.number().nonnegative(),
  timings: z.array(Timing),
});
export type SynthesizeResult = z.infer<typeof SynthesizeResult>;

/** Input of Transcribe. */
export const TranscribeInput = JobState;
export type TranscribeInput = z.infer<typeof TranscribeInput>;
/** Input of Reason. */
export const ReasonInput = JobState.extend({ transcribe: TranscribeResult });
export type ReasonInput = z.infer<typeof ReasonInput>;
/** Input of Synthesize. */
export const SynthesizeInput = ReasonInput.extend({ reason: ReasonResult });
export type SynthesizeInput = z.infer<typeof SynthesizeInput>;
/** Input of Finalize. */
export const FinalizeInput = SynthesizeInput.extend({ synthesize: SynthesizeResult });
export type FinalizeInput = z.infer<typeof FinalizeInput>;

/** What Step Functions puts at `$.failure` when a Catch matches. */
export const CaughtError = z.object({ Error: z.string(), Cause: z.string().optional() });

/**
 * Input of the failure recorder: the failed stage, the state it failed in (the job state, or the
 * triggering event when Ingest failed), and the execution.
 */
export const RecordFailureInput = z.object({
  stage: z.string(),
  state: z.looseObject({ failure: CaughtError }),
  execution: ExecutionInfo,
});
export type RecordFailureInput = z.infer<typeof RecordFailureInput>;

/** Output of Finalize: the execution's output. */
export interface FinalizeOutput {
  jobId: string;
  outcome: "succeeded";
  report: ArtifactRef;
}

/** Output of the failure recorder: the report, and the cause the Fail state reports. */
export interface RecordFailureOutput {
  jobId: string;
  report: ArtifactRef;
  cause: string;
}
