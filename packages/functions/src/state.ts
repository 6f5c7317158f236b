import { ArtifactRef, FactReview, SourceRef, Timing } from "@voxtrail/core";
import { ObjectCreatedEvent } from "@voxtrail/workflow";
import * as z from "zod/mini";

/** The facts of the execution, from the Step Functions context object. */
export const ExecutionInfo = z.object({ id: z.string(), startTime: z.string() });
export type ExecutionInfo = z.infer<typeof ExecutionInfo>;

/** Input of Ingest: the event that started the execution, and the execution. */
export const IngestInput = z.object({ event: ObjectCreatedEvent, execution: ExecutionInfo });
export type IngestInput = z.infer<typeof IngestInput>;

/** The job as every later stage sees it: written by Ingest, pointers only. */
export const JobState = z.object({
  jobId: z.string(),
  /** The job's run (its claim's number): a rerun of a failed job is run 2, 3, ... */
  run: z.number().check(z.int(), z.positive()),
  source: SourceRef,
  audioMs: z.number().check(z.nonnegative()),
  eventTime: z.string(),
  execution: ExecutionInfo,
  normalizedAudio: ArtifactRef,
  timings: z.array(Timing),
  /**
   * The call's language (`en-US`, `es-US`) where Ingest knew it (object metadata, a language folder
   * in the key, or the deployment's only language); absent when the transcriber must identify it.
   */
  language: z.optional(z.string()),
});
export type JobState = z.infer<typeof JobState>;

/** Transcribe's result, at `$.transcribe`. */
export const TranscribeResult = z.object({
  transcript: ArtifactRef,
  timings: z.array(Timing),
  /** The language the transcript is in (the job's, or the one the service identified). */
  language: z.optional(z.string()),
});
export type TranscribeResult = z.infer<typeof TranscribeResult>;

/** Reason's result, at `$.reason`. */
export const ReasonResult = z.object({
  record: ArtifactRef,
  replyText: ArtifactRef,
  timings: z.array(Timing),
  /**
   * The record's facts held for review, for the job report: kind, confidence and why, never a
   * value. Absent when none is.
   */
  review: z.optional(z.array(FactReview)),
});
export type ReasonResult = z.infer<typeof ReasonResult>;

/** Synthesize's result, at `$.synthesize`: `rtf` is synthesis time over reply duration. */
export const SynthesizeResult = z.object({
  replyAudio: ArtifactRef,
  audioMs: z.number().check(z.nonnegative()),
  rtf: z.number().check(z.nonnegative()),
  timings: z.array(Timing),
});
export type SynthesizeResult = z.infer<typeof SynthesizeResult>;

/** Input of Transcribe. */
export const TranscribeInput = JobState;
export type TranscribeInput = z.infer<typeof TranscribeInput>;

/**
 * The transcription job the start step began, at `$.transcription`: its name, where its output
 * goes, when it was requested, how many of its waits ended without its event, and (once its event
 * or the await step's look resumed the workflow) the status it ended with. Pointers only.
 */
export const TranscriptionState = z.object({
  jobName: z.string(),
  mediaUri: z.string(),
  outputKey: z.string(),
  requestedAt: z.string(),
  /** How long the start step's invocation ran, to the request: the read step records it. */
  startStepMs: z.number().check(z.nonnegative()),
  /** Waits that ran out without the job's event (the workflow's `CountTranscriptionWait`). */
  waits: z.object({ count: z.number().check(z.int(), z.nonnegative()) }),
  /** What resumed the workflow sent: the job's status then (absent when it stopped waiting). */
  ended: z.optional(z.object({ status: z.string() })),
});
export type TranscriptionState = z.infer<typeof TranscriptionState>;

/** Input of the start step of a transcription job: the job state, as the Task state's Parameters wrap it. */
export const StartTranscriptionInput = z.object({ step: z.literal("start"), job: JobState });
export type StartTranscriptionInput = z.infer<typeof StartTranscriptionInput>;

/**
 * Input of the await step: the job state with the transcription job, and the task token the
 * workflow waits on (`$$.Task.Token`).
 */
export const AwaitTranscriptionInput = z.object({
  step: z.literal("await"),
  job: z.extend(JobState, { transcription: TranscriptionState }),
  taskToken: z.string().check(z.minLength(1)),
});
export type AwaitTranscriptionInput = z.infer<typeof AwaitTranscriptionInput>;

/** Input of the read step: the job state with the transcription job the workflow waited for. */
export const ReadTranscriptionInput = z.object({
  step: z.literal("read"),
  job: z.extend(JobState, { transcription: TranscriptionState }),
});
export type ReadTranscriptionInput = z.infer<typeof ReadTranscriptionInput>;

/**
 * Input of the resume step: what the rule on Amazon Transcribe's "Transcribe Job State Change"
 * event passes (its input transformer picks the job's name and status from the event's `detail`).
 */
export const ResumeTranscriptionInput = z.object({
  step: z.literal("resume"),
  jobName: z.string().check(z.minLength(1)),
  status: z.string().check(z.minLength(1)),
});
export type ResumeTranscriptionInput = z.infer<typeof ResumeTranscriptionInput>;
/** Input of Reason. */
export const ReasonInput = z.extend(JobState, { transcribe: TranscribeResult });
export type ReasonInput = z.infer<typeof ReasonInput>;
/** Input of Synthesize. */
export const SynthesizeInput = z.extend(ReasonInput, { reason: ReasonResult });
export type SynthesizeInput = z.infer<typeof SynthesizeInput>;
/** Input of Finalize. */
export const FinalizeInput = z.extend(SynthesizeInput, { synthesize: SynthesizeResult });
export type FinalizeInput = z.infer<typeof FinalizeInput>;

/** What Step Functions puts at `$.failure` when a Catch matches. */
export const CaughtError = z.object({ Error: z.string(), Cause: z.optional(z.string()) });

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
