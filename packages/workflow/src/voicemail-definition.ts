import { TRANSIENT_ERROR_NAMES } from "@voxtrail/core";
import type { AslDefinition } from "./asl-definition";
import {
  functionOf,
  RESULT_PATHS,
  STAGE_TIMEOUT_SECONDS,
  type StageFunction,
  VOICEMAIL_STAGES,
  type VoicemailStage,
} from "./stages";
import { transcriptionJobStates } from "./transcription-job-states";

/** How transient errors are retried: exponential backoff with full jitter, capped. */
export interface RetryPolicy {
  intervalSeconds: number;
  backoffRate: number;
  maxAttempts: number;
  maxDelaySeconds: number;
}

/** The retry policy used unless a caller passes another. */
export const DEFAULT_RETRY: RetryPolicy = {
  intervalSeconds: 2,
  backoffRate: 2,
  maxAttempts: 3,
  maxDelaySeconds: 30,
};

/** Inputs of the builder: the ARN of each stage function. */
export interface VoicemailDefinitionOptions {
  functionArns: Record<StageFunction, string>;
  retry?: RetryPolicy;
  /** Seconds a stage may run, for the stages given (tests); `STAGE_TIMEOUT_SECONDS` for the others. */
  timeoutSeconds?: Partial<Record<VoicemailStage, number>>;
  /**
   * How Transcribe runs: in its function (`in-function`, the default: the transcriber is called
   * there), or as a job on Amazon Transcribe that the workflow starts, waits for and reads
   * (`service-job`, transcription-job-states.ts).
   */
  transcription?: TranscriptionMode;
}

/** How the Transcribe stage runs (see {@link VoicemailDefinitionOptions.transcription}). */
export type TranscriptionMode = "in-function" | "service-job";

/** The Choice after Ingest that sends a duplicate delivery to {@link DUPLICATE_STATE}. */
export const DUPLICATE_CHOICE = "IsDuplicate";
/** The Succeed state a duplicate delivery ends in: its output is `{ jobId, duplicate }`. */
export const DUPLICATE_STATE = "Duplicate";

/** The execution facts the first stage and the failure recorder receive from the context object. */
const EXECUTION_PARAMETERS = { "id.$": "$$.Execution.Id", "startTime.$": "$$.Execution.StartTime" };

/**
 * Builds the voicemail workflow: Ingest -> Transcribe -> Reason -> Synthesize -> Finalize, with a
 * Choice after Ingest that ends a duplicate delivery in the `Duplicate` Succeed state. Each
 * stage retries transient named errors with backoff and jitter; any other error is caught,
 * recorded by the failure recorder (job report with the failed stage), and ends in a Fail state
 * named after the stage (`TranscribeFailed`, ...). State payloads carry pointers only.
 *
 * The stacks deploy this definition to AWS Step Functions; the local runtime runs the same one.
 *
 * @example
 * const definition = buildVoicemailDefinition({ functionArns: { ingest: "arn:aws:lambda:...", ... } });
 * JSON.stringify(definition); // the ASL document for aws.sfn.StateMachine
 */
export function buildVoicemailDefinition(options: VoicemailDefinitionOptions): AslDefinition {
  const retry = options.retry ?? DEFAULT_RETRY;
  const states: AslDefinition["States"] = {};
  VOICEMAIL_STAGES.forEach((stage, index) => {
    const next = VOICEMAIL_STAGES[index + 1];
    const catcher = [{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: recorderState(stage) }];
    const timeoutSeconds = options.timeoutSeconds?.[stage] ?? STAGE_TIMEOUT_SECONDS[stage];
    if (stage === "Transcribe" && next && options.transcription === "service-job") {
      Object.assign(
        states,
        transcriptionJobStates({
          functionArn: options.functionArns.transcribe,
          timeoutSeconds,
          retry: [retrier(retry)],
          catcher,
          next,
        }),
      );
    } else
      states[stage] = {
        Type: "Task",
        Comment: `Runs the ${functionOf(stage)} handler.`,
        Resource: options.functionArns[functionOf(stage)],
        ...(stage === "Ingest" ? { Parameters: { "event.$": "$", execution: EXECUTION_PARAMETERS } } : {}),
        ...(RESULT_PATHS[stage] ? { ResultPath: RESULT_PATHS[stage] } : {}),
        TimeoutSeconds: timeoutSeconds,
        Retry: [retrier(retry)],
        Catch: catcher,
        ...(next ? { Next: stage === "Ingest" ? DUPLICATE_CHOICE : next } : { End: true }),
      };
    if (stage === "Ingest") {
      states[DUPLICATE_CHOICE] = {
        Type: "Choice",
        Comment: "Ingest returns { jobId, duplicate } when another execution owns the job.",
        Choices: [{ Variable: "$.duplicate", IsPresent: true, Next: DUPLICATE_STATE }],
        Default: next,
      };
      states[DUPLICATE_STATE] = {
        Type: "Succeed",
        Comment: "A duplicate delivery: the job is done or running elsewhere; nothing was written.",
      };
    }
    states[recorderState(stage)] = {
      Type: "Task",
      Comment: `Records that ${stage} failed: writes the job report and announces the failure.`,
      Resource: options.functionArns.recordFailure,
      Parameters: { stage, "state.$": "$", execution: EXECUTION_PARAMETERS },
      ResultPath: "$.failureReport",
      TimeoutSeconds: STAGE_TIMEOUT_SECONDS.Finalize,
      Retry: [retrier(retry)],
      Next: failState(stage),
    };
    states[failState(stage)] = {
      Type: "Fail",
      Comment: `The job failed in ${stage}; the cause names the error.`,
      Error: failState(stage),
      CausePath: "$.failureReport.cause",
    };
  });
  return {
    Comment:
      "voxtrail voicemail: transcribe a voicemail, reason over it with a record lookup, synthesize a reply.",
    StartAt: VOICEMAIL_STAGES[0],
    TimeoutSeconds: 3600,
    States: states,
  };
}

/** Name of the Task state that records a stage's failure. */
export function recorderState(stage: VoicemailStage): string {
  return `Record${stage}Failure`;
}

/** Name of the Fail state a stage's failure ends in. */
export function failState(stage: VoicemailStage): string {
  return `${stage}Failed`;
}

/**
 * A Retry rule for `errorNames` (our transient errors by default) under `policy`: exponential
 * backoff with full jitter, capped.
 *
 * @example
 * { Type: "Task", Retry: [retrier(DEFAULT_RETRY)], ... }
 */
export function retrier(policy: RetryPolicy, errorNames: readonly string[] = TRANSIENT_ERROR_NAMES) {
  return {
    ErrorEquals: [...errorNames],
    IntervalSeconds: policy.intervalSeconds,
    BackoffRate: policy.backoffRate,
    MaxAttempts: policy.maxAttempts,
    MaxDelaySeconds: policy.maxDelaySeconds,
    JitterStrategy: "FULL",
  };
}
