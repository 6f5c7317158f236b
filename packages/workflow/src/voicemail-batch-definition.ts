import { type AslDefinition, DEFAULT_RETRY, retrier } from "./voicemail-definition";

/** Names of the voicemail batch workflow's states. */
export const BATCH_STATES = {
  map: "RunVoicemails",
  describe: "DescribeVoicemail",
  run: "RunVoicemail",
  failed: "VoicemailFailed",
} as const;

/** Where the batch Map's ResultWriter puts each batch's per-item results. */
export const BATCH_RESULTS_PREFIX = "batch-results/";

/** Errors of the AWS SDK integrations worth a retry: throttling and S3's transient failures. */
const SDK_TRANSIENT_ERRORS = ["S3.SlowDownException", "S3.InternalErrorException", "SFN.ThrottlingException"];

/** Inputs of {@link buildVoicemailBatchDefinition}. */
export interface VoicemailBatchDefinitionOptions {
  /** The voicemail state machine each key runs through. */
  voicemailStateMachineArn: string;
  /** Voicemails in flight at once: bounded by what transcription and synthesis can serve. */
  maxConcurrency: number;
}

/**
 * Builds the voicemail batch workflow, started by a manifest landing under `incoming/batches/`:
 * a CSV whose `key` column names voicemails in the same bucket. A Distributed Map reads the
 * manifest (ItemReader), and for each key reads its ETag (`s3:headObject`) and runs the voicemail
 * workflow on the S3 "Object Created" event an upload of that object would have made
 * (`states:startExecution.sync:2`), at most `maxConcurrency` at once; per-item results go to
 * `batch-results/` (ResultWriter). A voicemail that fails (or cannot be read) ends its item in
 * `VoicemailFailed`, so one failure never stops the batch; the job report holds the details. Because Ingest claims each job by its source identity, running
 * the same manifest again skips voicemails already done (their executions end in `Duplicate`) and
 * runs the failed ones again.
 *
 * @example
 * const definition = buildVoicemailBatchDefinition({ voicemailStateMachineArn, maxConcurrency: 4 });
 * JSON.stringify(definition); // the ASL document for aws.sfn.StateMachine
 */
export function buildVoicemailBatchDefinition(options: VoicemailBatchDefinitionOptions): AslDefinition {
  if (!(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1)) {
    throw new RangeError("maxConcurrency must be a positive integer");
  }
  const retry = [retrier(DEFAULT_RETRY, SDK_TRANSIENT_ERRORS)];
  return {
    Comment: "voxtrail voicemail batch: run every voicemail a manifest names through the voicemail workflow.",
    StartAt: BATCH_STATES.map,
    TimeoutSeconds: 86_400,
    States: {
      [BATCH_STATES.map]: {
        Type: "Map",
        Comment: "One voicemail workflow execution per manifest row, as many at once as the engines serve.",
        ItemReader: {
          Resource: "arn:aws:states:::s3:getObject",
          ReaderConfig: { InputType: "CSV", CSVHeaderLocation: "FIRST_ROW" },
          Parameters: { "Bucket.$": "$.detail.bucket.name", "Key.$": "$.detail.object.key" },
        },
        // The manifest's arrival is each voicemail's event time: a job's end-to-end time then
        // includes its wait for a place in the batch.
        ItemSelector: {
          "bucket.$": "$.detail.bucket.name",
          "key.$": "$$.Map.Item.Value.key",
          "eventTime.$": "$.time",
        },
        ItemProcessor: {
          ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" },
          StartAt: BATCH_STATES.describe,
          States: {
            [BATCH_STATES.describe]: {
              Type: "Task",
              Comment: "The voicemail's ETag: with bucket and key, the job's source identity.",
              Resource: "arn:aws:states:::aws-sdk:s3:headObject",
              Parameters: { "Bucket.$": "$.bucket", "Key.$": "$.key" },
              ResultSelector: { "etag.$": "$.ETag" },
              ResultPath: "$.object",
              Retry: retry,
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
                    object: { "key.$": "$.key", "etag.$": "$.object.etag" },
                  },
                },
              },
              ResultSelector: { "status.$": "$.Status", "output.$": "$.Output" },
              ResultPath: "$.execution",
              Retry: retry,
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
          Parameters: { "Bucket.$": "$.detail.bucket.name", Prefix: BATCH_RESULTS_PREFIX },
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
