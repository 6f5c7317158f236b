import type { AslDefinition } from "./asl-definition";
import { DEFAULT_RETRY, functionRetries, RETRY_CLASSES, retrier } from "./retry-policies";

/** The Lambda functions the voicemail batch workflow calls. */
export const BATCH_FUNCTIONS = ["openBatch"] as const;
export type BatchFunction = (typeof BATCH_FUNCTIONS)[number];

/**
 * Seconds each batch Task may run before Step Functions fails it with `States.Timeout`; its Lambda
 * function times out FUNCTION_TIMEOUT_MARGIN_SECONDS sooner (function-sizes.ts).
 */
export const BATCH_TIMEOUT_SECONDS: Record<BatchFunction, number> = { openBatch: 30 };

/** Names of the voicemail batch workflow's states. */
export const BATCH_STATES = {
  open: "OpenBatch",
  map: "RunVoicemails",
  describe: "DescribeVoicemail",
  run: "RunVoicemail",
  failed: "VoicemailFailed",
} as const;

/** Where the batch Map's ResultWriter puts each batch's per-item results. */
export const BATCH_RESULTS_PREFIX = "batch-results/";

/**
 * What `DescribeVoicemail` (`aws-sdk:s3:headObject`) retries. An AWS SDK integration names an error
 * `<Service>.<Name>Exception` only when the service models it ("AWS SDK service integrations",
 * https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html): HeadObject
 * models none but NotFound, so S3's transient answers (503 SlowDown, 500 InternalError) arrive as
 * the generic `S3.S3Exception`, and `S3.SlowDownException` or `S3.InternalErrorException` would
 * never match. A 403 (AccessDenied) is an `S3.S3Exception` too: it is retried like the others, to
 * no avail, then caught into `VoicemailFailed`. A missing key (`S3.NoSuchKeyException`, a 404 since
 * the role may list the keys) is not retried.
 */
export const HEAD_OBJECT_RETRIED_ERRORS = ["S3.S3Exception"];

/**
 * What `RunVoicemail` (the optimized `states:startExecution.sync:2` integration) retries: too many
 * executions running. Its errors are named `StepFunctions.*`, as in the AWS guide's own example
 * ("Start workflow executions from a task state",
 * https://docs.aws.amazon.com/step-functions/latest/dg/concepts-nested-workflows.html, which
 * retries `StepFunctions.ExecutionLimitExceeded`). The `...Exception` spelling is listed too:
 * errors of this integration have been reported with the suffix (e.g.
 * `StepFunctions.ExecutionAlreadyExistsException`), and which one AWS sends today is not documented.
 * A child execution that fails is `States.TaskFailed`, never retried here (its own states retried).
 */
export const START_EXECUTION_RETRIED_ERRORS = [
  "StepFunctions.ExecutionLimitExceeded",
  "StepFunctions.ExecutionLimitExceededException",
];

/** Inputs of {@link buildVoicemailBatchDefinition}. */
export interface VoicemailBatchDefinitionOptions {
  /** The ARN of each batch function (OpenBatch). */
  functionArns: Record<BatchFunction, string>;
  /** The voicemail state machine each key runs through. */
  voicemailStateMachineArn: string;
  /** Voicemails in flight at once: bounded by what transcription and synthesis can serve. */
  maxConcurrency: number;
}

/**
 * Builds the voicemail batch workflow, started by a manifest landing under `incoming/batches/`:
 * a CSV whose `key` column names voicemails in the same bucket. `OpenBatch` (a Lambda function:
 * JSONPath cannot decode) takes the S3 event and answers where the manifest is,
 * `{ bucket, key, time }`, its key decoded from the event's form encoding (`objectKeyOf`,
 * source-event.ts). A Distributed Map reads the manifest at that key (ItemReader), and for each
 * key reads its version id and ETag (`s3:headObject`; every stage's bucket is versioned) and runs
 * the voicemail workflow on the S3 "Object Created" event an upload of that object would have
 * made, without `reason`, so Ingest takes the row's key as it is (`states:startExecution.sync:2`),
 * at most `maxConcurrency` at once; per-item results go to `batch-results/` (ResultWriter). Each
 * Task retries the transient errors its integration raises ({@link HEAD_OBJECT_RETRIED_ERRORS},
 * {@link START_EXECUTION_RETRIED_ERRORS}). A voicemail that fails (or cannot be read) ends its
 * item in `VoicemailFailed`, so one failure never stops the batch; the job report holds the
 * details. Because Ingest claims each job by its source identity, running the same manifest again
 * skips voicemails already done (their executions end in `Duplicate`) and runs the failed ones
 * again.
 *
 * @example
 * const definition = buildVoicemailBatchDefinition({ functionArns, voicemailStateMachineArn, maxConcurrency: 4 });
 * JSON.stringify(definition); // the ASL document for aws.sfn.StateMachine
 */
export function buildVoicemailBatchDefinition(options: VoicemailBatchDefinitionOptions): AslDefinition {
  if (!(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1)) {
    throw new RangeError("maxConcurrency must be a positive integer");
  }
  return {
    Comment: "voxtrail voicemail batch: run every voicemail a manifest names through the voicemail workflow.",
    StartAt: BATCH_STATES.open,
    TimeoutSeconds: 86_400,
    States: {
      [BATCH_STATES.open]: {
        Type: "Task",
        Comment:
          "Where the manifest is: the stage's bucket and the event's key, decoded as S3's API takes it.",
        Resource: options.functionArns.openBatch,
        TimeoutSeconds: BATCH_TIMEOUT_SECONDS.openBatch,
        Retry: functionRetries(),
        Next: BATCH_STATES.map,
      },
      [BATCH_STATES.map]: {
        Type: "Map",
        Comment: "One voicemail workflow execution per manifest row, as many at once as the engines serve.",
        ItemReader: {
          Resource: "arn:aws:states:::s3:getObject",
          ReaderConfig: { InputType: "CSV", CSVHeaderLocation: "FIRST_ROW" },
          Parameters: { "Bucket.$": "$.bucket", "Key.$": "$.key" },
        },
        // The manifest's arrival is each voicemail's event time: a job's end-to-end time then
        // includes its wait for a place in the batch. A row's key is taken as the manifest spells
        // it: the child's event has no `reason`, so Ingest reads exactly that key.
        ItemSelector: {
          "bucket.$": "$.bucket",
          "key.$": "$$.Map.Item.Value.key",
          "eventTime.$": "$.time",
        },
        ItemProcessor: {
          ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" },
          StartAt: BATCH_STATES.describe,
          States: {
            [BATCH_STATES.describe]: {
              Type: "Task",
              Comment: "The voicemail's current version: with bucket and key, the job's source identity.",
              Resource: "arn:aws:states:::aws-sdk:s3:headObject",
              Parameters: { "Bucket.$": "$.bucket", "Key.$": "$.key" },
              ResultSelector: { "etag.$": "$.ETag", "versionId.$": "$.VersionId" },
              ResultPath: "$.object",
              Retry: [retrier(DEFAULT_RETRY, HEAD_OBJECT_RETRIED_ERRORS)],
              Catch: [catchInto(BATCH_STATES.failed)],
              Next: BATCH_STATES.run,
            },
            [BATCH_STATES.run]: {
              Type: "Task",
              Comment: "Runs the voicemail workflow on the event an upload of the object makes.",
              Resource: "arn:aws:states:::states:startExecution.sync:2",
              Parameters: {
                StateMachineArn: options.voicemailStateMachineArn,
                Input: {
                  source: "aws.s3",
                  "detail-type": "Object Created",
                  "time.$": "$.eventTime",
                  detail: {
                    bucket: { "name.$": "$.bucket" },
                    object: {
                      "key.$": "$.key",
                      "etag.$": "$.object.etag",
                      "version-id.$": "$.object.versionId",
                    },
                  },
                },
              },
              ResultSelector: { "status.$": "$.Status", "output.$": "$.Output" },
              ResultPath: "$.execution",
              Retry: [retrier(RETRY_CLASSES.throttled.policy, START_EXECUTION_RETRIED_ERRORS)],
              Catch: [catchInto(BATCH_STATES.failed)],
              End: true,
            },
            [BATCH_STATES.failed]: {
              Type: "Pass",
              Comment: "The voicemail's failure, as this item's result; the job report holds the details.",
              Parameters: { "key.$": "$.key", status: "FAILED", "error.$": "$.failure.Error" },
              End: true,
            },
          },
        },
        MaxConcurrency: options.maxConcurrency,
        ToleratedFailurePercentage: 100,
        ResultWriter: {
          Resource: "arn:aws:states:::s3:putObject",
          Parameters: { "Bucket.$": "$.bucket", Prefix: BATCH_RESULTS_PREFIX },
        },
        ResultPath: null,
        End: true,
      },
    },
  };
}

function catchInto(next: string) {
  return { ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: next };
}
