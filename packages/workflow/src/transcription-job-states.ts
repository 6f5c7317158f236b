import type { AslDefinition } from "./asl-definition";

/**
 * The Lambda integration that waits for a task token: Step Functions invokes the function with
 * the state's `Payload` and then waits, without polling, until someone calls `SendTaskSuccess` or
 * `SendTaskFailure` with the token, or the state's `TimeoutSeconds` pass ("Wait for a Callback
 * with Task Token", https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token).
 */
export const WAIT_FOR_TASK_TOKEN_LAMBDA = "arn:aws:states:::lambda:invoke.waitForTaskToken";

/** The states a transcription job adds after `Transcribe` (its start), in the order they run. */
export const TRANSCRIPTION_JOB_STATES = {
  await: "AwaitTranscription",
  count: "CountTranscriptionWait",
  waitedEnough: "TranscriptionWaitedEnough",
  read: "ReadTranscription",
} as const;

/**
 * Seconds one wait for the job's end lasts before the workflow looks for itself: the safety net
 * for a lost "Transcribe Job State Change" event. Each wait costs one `GetTranscriptionJob` (the
 * await step's look), so 10,000 queued jobs ask about 5.6 times a second at most.
 */
export const TRANSCRIPTION_WAIT_SECONDS = 1800;

/**
 * Waits after which the workflow stops waiting and the read step fails the job with
 * `TranscriptionTimedOut`: 10 waits of 30 minutes, 5 hours. Sized for Transcribe's queue: 10,000
 * queued jobs (its queue's default size) served at 90% of 250 concurrent jobs take about
 * 10,000 x 90 s / 225 = 67 minutes for two-minute voicemails, and 3.7 hours if each job took
 * 5 minutes (docs/volume.md).
 */
export const MAX_TRANSCRIPTION_WAITS = 10;

/** What the transcription job's states are built from: the Transcribe function and the stage's shared pieces. */
export interface TranscriptionJobStateOptions {
  /** The Transcribe function's ARN: it runs the job's start, await and read steps. */
  functionArn: string;
  /** The Task timeout of the Transcribe function's direct invocations (start, read). */
  timeoutSeconds: number;
  /** The Retry rules of a Lambda task. */
  retry: Record<string, unknown>[];
  /** The Catch rules that send a failure to the stage's failure recorder. */
  catcher: Record<string, unknown>[];
  /** The state after the transcript is read (Reason). */
  next: string;
}

/**
 * The `Transcribe` stage as a job on Amazon Transcribe, waiting for its end without polling:
 * `Transcribe` invokes the function's start step (the job is queued by Transcribe when the
 * account's concurrent jobs are all busy; its result at `$.transcription`); `AwaitTranscription`
 * invokes the await step with a task token (`lambda:invoke.waitForTaskToken`), which stores the
 * token where the job's state-change event finds it, looks at the job once and resumes the
 * workflow itself when the job has already ended. Otherwise the workflow sleeps until the
 * "Transcribe Job State Change" event reaches the function's resume step (an EventBridge rule,
 * stacks/transcription-events.ts), which sends `SendTaskSuccess` with the job's status (at
 * `$.transcription.ended`). A wait that outlasts {@link TRANSCRIPTION_WAIT_SECONDS} (a lost event)
 * is counted and waits again, looking once more; after {@link MAX_TRANSCRIPTION_WAITS} it goes on to
 * `ReadTranscription`, whose read step then fails the job as `TranscriptionTimedOut`. The read step
 * describes the job and turns its output into `transcript.json`; its result is Transcribe's usual
 * `$.transcribe`, so the stages after it are unchanged. Every failure goes to the stage's failure
 * recorder.
 *
 * @example
 * Object.assign(states, transcriptionJobStates({ functionArn, timeoutSeconds: 300, retry, catcher, next: "Reason" }));
 */
export function transcriptionJobStates(options: TranscriptionJobStateOptions): AslDefinition["States"] {
  const invoke = (step: "start" | "read", resultPath: string, next: string) => ({
    Type: "Task",
    Resource: options.functionArn,
    Parameters: { step, "job.$": "$" },
    ResultPath: resultPath,
    TimeoutSeconds: options.timeoutSeconds,
    Retry: options.retry,
    Catch: options.catcher,
    Next: next,
  });
  return {
    Transcribe: {
      Comment:
        "Starts the Amazon Transcribe job, queued when the account's jobs are all busy (the start step).",
      ...invoke("start", "$.transcription", TRANSCRIPTION_JOB_STATES.await),
    },
    [TRANSCRIPTION_JOB_STATES.await]: {
      Type: "Task",
      Comment:
        "Waits for the job's state-change event (the await step stores the token and looks once; the resume step sends it back).",
      Resource: WAIT_FOR_TASK_TOKEN_LAMBDA,
      Parameters: {
        FunctionName: options.functionArn,
        Payload: { step: "await", "job.$": "$", "taskToken.$": "$$.Task.Token" },
      },
      ResultPath: "$.transcription.ended",
      TimeoutSeconds: TRANSCRIPTION_WAIT_SECONDS,
      Retry: options.retry,
      Catch: [
        { ErrorEquals: ["States.Timeout"], ResultPath: null, Next: TRANSCRIPTION_JOB_STATES.count },
        ...options.catcher,
      ],
      Next: TRANSCRIPTION_JOB_STATES.read,
    },
    [TRANSCRIPTION_JOB_STATES.count]: {
      Type: "Pass",
      Comment: "Counts a wait that ended without the job's event.",
      Parameters: { "count.$": "States.MathAdd($.transcription.waits.count, 1)" },
      ResultPath: "$.transcription.waits",
      Next: TRANSCRIPTION_JOB_STATES.waitedEnough,
    },
    [TRANSCRIPTION_JOB_STATES.waitedEnough]: {
      Type: "Choice",
      Comment: "Waits again, or stops waiting and lets the read step say the job ran too long.",
      Choices: [
        {
          Variable: "$.transcription.waits.count",
          NumericGreaterThanEquals: MAX_TRANSCRIPTION_WAITS,
          Next: TRANSCRIPTION_JOB_STATES.read,
        },
      ],
      Default: TRANSCRIPTION_JOB_STATES.await,
    },
    [TRANSCRIPTION_JOB_STATES.read]: {
      Comment: "Reads the job's output into the transcript (the read step).",
      ...invoke("read", "$.transcribe", options.next),
    },
  };
}
