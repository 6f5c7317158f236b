import type { AslDefinition } from "./asl-definition";

/** The aws-sdk service integration the workflow polls a transcription job with. */
export const GET_TRANSCRIPTION_JOB_RESOURCE = "arn:aws:states:::aws-sdk:transcribe:getTranscriptionJob";

/** The states a transcription job adds after `Transcribe` (its start), in the order they run. */
export const TRANSCRIPTION_JOB_STATES = {
  wait: "WaitForTranscription",
  poll: "GetTranscriptionJob",
  ended: "TranscriptionEnded",
  count: "CountTranscriptionPoll",
  read: "ReadTranscription",
} as const;

/**
 * Seconds between polls of a transcription job: how long a finished job may wait to be noticed,
 * against four state transitions a poll (Wait, Task, Choice, Pass). Not measured against real
 * Transcribe job times (none can be run here).
 */
export const TRANSCRIPTION_POLL_SECONDS = 10;

/**
 * Polls after which the workflow stops waiting and the read step fails the job with
 * `TranscriptionTimedOut`: 90 polls of 10 s, 15 minutes, well inside the execution's hour.
 */
export const MAX_TRANSCRIPTION_POLLS = 90;

/**
 * Errors of GetTranscriptionJob worth retrying, as Step Functions names an aws-sdk integration's
 * errors (`<Service>.<Exception>`): the account's request rate, and the service's own failures.
 */
const TRANSIENT_POLL_ERRORS = ["Transcribe.LimitExceededException", "Transcribe.InternalFailureException"];

/** What the transcription job's states are built from: the Transcribe function and the stage's shared pieces. */
export interface TranscriptionJobStateOptions {
  /** The Transcribe function's ARN: it runs the job's start and read steps. */
  functionArn: string;
  /** The Task timeout of the Transcribe function's states. */
  timeoutSeconds: number;
  /** The Retry rules of a Lambda task. */
  retry: Record<string, unknown>[];
  /** The Catch rules that send a failure to the stage's failure recorder. */
  catcher: Record<string, unknown>[];
  /** The state after the transcript is read (Reason). */
  next: string;
}

/**
 * The `Transcribe` stage as a transcription job on Amazon Transcribe (Step Functions has no `.sync`
 * integration for it): `Transcribe` invokes the function's start step (its result at
 * `$.transcription`), then a loop of `WaitForTranscription` -> `GetTranscriptionJob` (the aws-sdk
 * integration, the state machine's role calling it; the response at `$.transcription.described`)
 * -> `TranscriptionEnded`, a Choice that goes on to `ReadTranscription` once the job is COMPLETED
 * or FAILED or after {@link MAX_TRANSCRIPTION_POLLS} polls, and otherwise counts the poll
 * (`States.MathAdd`) and waits again. `ReadTranscription` invokes the read step, whose result is
 * Transcribe's usual `$.transcribe`, so the stages after it are unchanged. Every failure goes to
 * the stage's failure recorder.
 *
 * @example
 * Object.assign(states, transcriptionJobStates({ functionArn, timeoutSeconds: 300, retry, catcher, next: "Reason" }));
 */
export function transcriptionJobStates(options: TranscriptionJobStateOptions): AslDefinition["States"] {
  const step = (name: "start" | "read") => ({ step: name, "job.$": "$" });
  const status = "$.transcription.described.TranscriptionJob.TranscriptionJobStatus";
  return {
    Transcribe: {
      Type: "Task",
      Comment: "Starts the Amazon Transcribe job (the transcribe handler's start step).",
      Resource: options.functionArn,
      Parameters: step("start"),
      ResultPath: "$.transcription",
      TimeoutSeconds: options.timeoutSeconds,
      Retry: options.retry,
      Catch: options.catcher,
      Next: TRANSCRIPTION_JOB_STATES.wait,
    },
    [TRANSCRIPTION_JOB_STATES.wait]: {
      Type: "Wait",
      Comment: "Gives the transcription job time to run.",
      Seconds: TRANSCRIPTION_POLL_SECONDS,
      Next: TRANSCRIPTION_JOB_STATES.poll,
    },
    [TRANSCRIPTION_JOB_STATES.poll]: {
      Type: "Task",
      Comment: "Asks Amazon Transcribe how the job stands (no caller data: status, times, URIs).",
      Resource: GET_TRANSCRIPTION_JOB_RESOURCE,
      Parameters: { "TranscriptionJobName.$": "$.transcription.jobName" },
      ResultPath: "$.transcription.described",
      TimeoutSeconds: 30,
      Retry: [
        {
          ErrorEquals: TRANSIENT_POLL_ERRORS,
          IntervalSeconds: 5,
          BackoffRate: 2,
          MaxAttempts: 5,
          MaxDelaySeconds: 60,
          JitterStrategy: "FULL",
        },
      ],
      Catch: options.catcher,
      Next: TRANSCRIPTION_JOB_STATES.ended,
    },
    [TRANSCRIPTION_JOB_STATES.ended]: {
      Type: "Choice",
      Comment: "Read the result once the job has ended, or once the workflow has waited long enough.",
      Choices: [
        {
          Or: [
            { Variable: status, StringEquals: "COMPLETED" },
            { Variable: status, StringEquals: "FAILED" },
          ],
          Next: TRANSCRIPTION_JOB_STATES.read,
        },
        {
          Variable: "$.transcription.polls.count",
          NumericGreaterThanEquals: MAX_TRANSCRIPTION_POLLS - 1,
          Next: TRANSCRIPTION_JOB_STATES.read,
        },
      ],
      Default: TRANSCRIPTION_JOB_STATES.count,
    },
    [TRANSCRIPTION_JOB_STATES.count]: {
      Type: "Pass",
      Comment: "Counts the poll.",
      Parameters: { "count.$": "States.MathAdd($.transcription.polls.count, 1)" },
      ResultPath: "$.transcription.polls",
      Next: TRANSCRIPTION_JOB_STATES.wait,
    },
    [TRANSCRIPTION_JOB_STATES.read]: {
      Type: "Task",
      Comment: "Reads the job's output into the transcript (the transcribe handler's read step).",
      Resource: options.functionArn,
      Parameters: step("read"),
      ResultPath: "$.transcribe",
      TimeoutSeconds: options.timeoutSeconds,
      Retry: options.retry,
      Catch: options.catcher,
      Next: options.next,
    },
  };
}
