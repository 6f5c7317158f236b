import type { AslDefinition } from "./asl-definition";
import { functionRetries, RETRY_CLASSES, retryHorizonSeconds } from "./retry-policies";
import {
  functionOf,
  RESULT_PATHS,
  STAGE_TIMEOUT_SECONDS,
  type StageFunction,
  VOICEMAIL_STAGES,
  type VoicemailStage,
} from "./stages";
import {
  MAX_TRANSCRIPTION_WAITS,
  TRANSCRIPTION_WAIT_SECONDS,
  transcriptionJobStates,
} from "./transcription-job-states";

/** Inputs of the builder: the ARN of each stage function. */
export interface VoicemailDefinitionOptions {
  functionArns: Record<StageFunction, string>;
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
          retry: functionRetries(),
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
        Retry: functionRetries(),
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
      Retry: functionRetries(),
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
    TimeoutSeconds: executionTimeoutSeconds(options.transcription ?? "in-function"),
    States: states,
  };
}

/**
 * How long a voicemail execution may run, by how Transcribe runs: every stage's own time, plus one
 * full horizon of waiting out throttled services (RETRY_CLASSES.throttled), plus, for a service
 * job, every wait for the job ({@link MAX_TRANSCRIPTION_WAITS} x {@link TRANSCRIPTION_WAIT_SECONDS},
 * a full Transcribe queue), rounded up to the hour. `voxtrail run --stage` follows this long.
 *
 * @example
 * executionTimeoutSeconds("service-job"); // 28800 (8 hours)
 */
export function executionTimeoutSeconds(transcription: TranscriptionMode): number {
  const stages = VOICEMAIL_STAGES.reduce((sum, stage) => sum + STAGE_TIMEOUT_SECONDS[stage], 0);
  const throttled = retryHorizonSeconds(RETRY_CLASSES.throttled.policy);
  const transcriptionWaits =
    transcription === "service-job" ? MAX_TRANSCRIPTION_WAITS * TRANSCRIPTION_WAIT_SECONDS : 0;
  return Math.ceil((stages + throttled + transcriptionWaits) / 3600) * 3600;
}

/** Name of the Task state that records a stage's failure. */
export function recorderState(stage: VoicemailStage): string {
  return `Record${stage}Failure`;
}

/** Name of the Fail state a stage's failure ends in. */
export function failState(stage: VoicemailStage): string {
  return `${stage}Failed`;
}
