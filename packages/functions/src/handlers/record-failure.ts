import {
  type ArtifactRef,
  InvalidInput,
  type RecordedError,
  type ReportSource,
  type Timing,
} from "@voxtrail/core";
import { jobIdFor, ObjectCreatedEvent, sourceIdentityOf } from "@voxtrail/workflow";
import * as z from "zod/mini";
import { reportLanguage } from "../call-language";
import { defineStage, type StageNeeds } from "../kernel/stage-definition";
import { reportWriter, writeReportAndAnnounce } from "../reporting";
import {
  JobState,
  ReasonResult,
  RecordFailureInput,
  type RecordFailureOutput,
  SynthesizeResult,
  TranscribeResult,
} from "../state";

/** The parts of a job state that may exist when a stage fails: each stage's result, if it got that far. */
const PartialJob = z.extend(JobState, {
  transcribe: z.optional(TranscribeResult),
  reason: z.optional(ReasonResult),
  synthesize: z.optional(SynthesizeResult),
});

/** The voicemail steps, last first: what a failure record may follow in the job's chain. */
const FAILURE_FOLLOWS = ["Finalize", "Synthesize", "Reason", "Transcribe", "Ingest"];

/** What the failure recorder works out before its attempt: the failed job's report draft. */
interface FailedJob {
  jobId: string;
  source: ReportSource;
  eventTime: string;
  artifacts: ArtifactRef[];
  stages: StageTimings;
  language?: string;
}

/**
 * Records a failed job: the failure recorder every stage's Catch leads to. Writes the report with
 * outcome `failed`, the stage and the error, and whatever artifacts exist; announces the failure;
 * returns the cause the Fail state reports (error name and safe message). Its records go under
 * `Record<Stage>Failure`.
 */
export const recordFailureStage = defineStage<StageNeeds<"events">>()({
  name: "RecordFailure",
  input: RecordFailureInput,
  endsJob: true,
  flows: () => [],
  open: (input) => {
    const failed = failedJobOf(input);
    return {
      jobId: failed.jobId,
      inputs: failed.artifacts,
      recordAs: `Record${input.stage}Failure`,
      // The failed stage's last attempt, or the nearest step before it that left a record.
      follows: [input.stage, ...FAILURE_FOLLOWS.slice(FAILURE_FOLLOWS.indexOf(input.stage) + 1)],
      carry: failed,
    };
  },
  run: async (input, { deps, activity }, failed): Promise<RecordFailureOutput> => {
    const error = caughtError(input.state.failure);
    activity.processors.push(reportWriter(deps));
    const report = await writeReportAndAnnounce(deps, {
      ...failed,
      outcome: "failed",
      execution: input.execution,
      failure: { stage: input.stage, error },
    });
    activity.outputs.push(report);
    return { jobId: failed.jobId, report, cause: `${error.name}: ${error.message}` };
  },
});

/** The failed job as far as its state goes: a job state, or the event Ingest failed on. */
function failedJobOf(input: RecordFailureInput): FailedJob {
  const job = PartialJob.safeParse(input.state);
  if (job.success) {
    const j = job.data;
    return {
      jobId: j.jobId,
      source: { ...j.source, audioMs: j.audioMs },
      eventTime: j.eventTime,
      artifacts: [
        j.source,
        j.normalizedAudio,
        j.transcribe?.transcript,
        j.reason?.record,
        j.reason?.replyText,
        j.synthesize?.replyAudio,
      ].filter((ref): ref is ArtifactRef => ref !== undefined),
      stages: [
        { stage: "Ingest", timings: j.timings },
        ...(j.transcribe ? [{ stage: "Transcribe", timings: j.transcribe.timings }] : []),
        ...(j.reason ? [{ stage: "Reason", timings: j.reason.timings }] : []),
        ...(j.synthesize ? [{ stage: "Synthesize", timings: j.synthesize.timings }] : []),
      ],
      ...reportLanguage(j),
    };
  }
  const event = ObjectCreatedEvent.safeParse(input.state);
  if (event.success) {
    const source = failedSourceOf(event.data);
    return { jobId: jobIdFor(source), source, eventTime: event.data.time, artifacts: [], stages: [] };
  }
  throw new InvalidInput(
    `the state of the failed ${input.stage} stage is neither a job state nor an S3 event`,
  );
}

type StageTimings = Array<{ stage: string; timings: Timing[] }>;

/**
 * The source identity of an event Ingest failed on. An event whose key does not decode (Ingest's
 * `InvalidInput`) still gets its failure report: its identity then keeps the key as delivered.
 */
function failedSourceOf(event: ObjectCreatedEvent): ReturnType<typeof sourceIdentityOf> {
  try {
    return sourceIdentityOf(event);
  } catch (error) {
    if (!(error instanceof InvalidInput)) throw error;
    const { reason: _, ...detail } = event.detail;
    return sourceIdentityOf({ ...event, detail });
  }
}

const LambdaCause = z.object({ errorType: z.optional(z.string()), errorMessage: z.string() });

/**
 * The error as Step Functions caught it. Lambda puts `{"errorType","errorMessage",...}` JSON in
 * `Cause`; Step Functions' own errors (States.Timeout, ...) carry plain text.
 */
function caughtError(failure: { Error: string; Cause?: string | undefined }): RecordedError {
  const cause = failure.Cause ?? "";
  try {
    const parsed = LambdaCause.safeParse(JSON.parse(cause));
    if (parsed.success) return { name: failure.Error, message: parsed.data.errorMessage };
  } catch {
    // Not JSON: a Step Functions error's plain-text cause.
  }
  return { name: failure.Error, message: cause };
}
