import { describe, expect, it } from "vitest";
import {
  BATCH_INCOMING_PREFIX,
  BATCH_RESULTS_PREFIX,
  BATCH_STATES,
  BATCH_TIMEOUT_SECONDS,
  buildVoicemailBatchDefinition,
  voicemailBatchRulePattern,
} from "../src";
import { expectValidAsl } from "./expect-valid-asl";

const voicemailStateMachineArn = "arn:aws:states:us-east-1:123456789012:stateMachine:voxtrail-test-voicemail";
const functionArns = { openBatch: "arn:aws:lambda:us-east-1:123456789012:function:voxtrail-test-openBatch" };

describe("buildVoicemailBatchDefinition", () => {
  const definition = buildVoicemailBatchDefinition({
    functionArns,
    voicemailStateMachineArn,
    maxConcurrency: 4,
  });
  /** The parts of the Map state these tests read. */
  type MapState = {
    ItemReader: unknown;
    ItemSelector: unknown;
    ItemProcessor: { ProcessorConfig: unknown; States: Record<string, unknown> };
    MaxConcurrency: number;
    ToleratedFailurePercentage: number;
    ResultWriter: { Resource: string; Parameters: unknown };
  };
  const map = definition.States[BATCH_STATES.map] as unknown as MapState;
  const processor = map.ItemProcessor.States;

  it("is valid Amazon States Language", () => expectValidAsl(definition));

  it("opens the batch with OpenBatch first, whose output (decoded key) the Map reads", () => {
    expect(definition.StartAt).toBe(BATCH_STATES.open);
    const open = definition.States[BATCH_STATES.open] as Record<string, unknown>;
    expect(open).toMatchObject({
      Type: "Task",
      Resource: functionArns.openBatch,
      TimeoutSeconds: BATCH_TIMEOUT_SECONDS.openBatch,
      Next: BATCH_STATES.map,
    });
    // OpenBatch's output replaces the state (no ResultPath): the Map reads `$.bucket`, `$.key`, `$.time`.
    expect(open.ResultPath).toBeUndefined();
    expect(open.Parameters).toBeUndefined();
    // Nothing reads the event's key as EventBridge delivered it (form-encoded).
    expect(JSON.stringify(definition)).not.toContain("$.detail");
  });

  it("reads the manifest OpenBatch named as CSV, bounded by MaxConcurrency, tolerating failures", () => {
    expect(map.ItemReader).toMatchObject({
      Resource: "arn:aws:states:::s3:getObject",
      ReaderConfig: { InputType: "CSV", CSVHeaderLocation: "FIRST_ROW" },
      Parameters: { "Bucket.$": "$.bucket", "Key.$": "$.key" },
    });
    expect(map.ItemSelector).toEqual({
      "bucket.$": "$.bucket",
      "key.$": "$$.Map.Item.Value.key",
      "eventTime.$": "$.time",
    });
    expect(map.ResultWriter.Parameters).toEqual({ "Bucket.$": "$.bucket", Prefix: BATCH_RESULTS_PREFIX });
    expect(map.ItemProcessor.ProcessorConfig).toEqual({ Mode: "DISTRIBUTED", ExecutionType: "STANDARD" });
    expect(map.MaxConcurrency).toBe(4);
    expect(map.ToleratedFailurePercentage).toBe(100);
    expect(map.ResultWriter.Resource).toBe("arn:aws:states:::s3:putObject");
  });

  it("runs the voicemail workflow on the event an upload of each key makes, without `reason` (the row's key taken as it is), waiting for it", () => {
    expect(processor[BATCH_STATES.describe]).toMatchObject({
      Resource: "arn:aws:states:::aws-sdk:s3:headObject",
      ResultSelector: { "etag.$": "$.ETag" },
      Next: BATCH_STATES.run,
    });
    expect(processor[BATCH_STATES.run]).toMatchObject({
      Resource: "arn:aws:states:::states:startExecution.sync:2",
      Parameters: {
        StateMachineArn: voicemailStateMachineArn,
        Input: {
          source: "aws.s3",
          "detail-type": "Object Created",
          detail: {
            bucket: { "name.$": "$.bucket" },
            object: { "key.$": "$.key", "etag.$": "$.object.etag" },
          },
        },
      },
    });
    const run = processor[BATCH_STATES.run] as { Parameters: { Input: { detail: Record<string, unknown> } } };
    expect(Object.keys(run.Parameters.Input.detail).sort()).toEqual(["bucket", "object"]);
  });

  it("retries in each Task state the transient errors under the names its integration raises", () => {
    const retried = (state: string) =>
      (processor[state] as { Retry: Array<{ ErrorEquals: string[] }> }).Retry.flatMap((r) => r.ErrorEquals);
    // aws-sdk:s3:headObject: unmodeled S3 errors (SlowDown, InternalError, AccessDenied) are S3.S3Exception.
    expect(retried(BATCH_STATES.describe)).toEqual(["S3.S3Exception"]);
    // startExecution.sync:2: the optimized integration's StepFunctions.* names, both spellings.
    expect(retried(BATCH_STATES.run)).toEqual([
      "StepFunctions.ExecutionLimitExceeded",
      "StepFunctions.ExecutionLimitExceededException",
    ]);
    // Names no integration raises: the aws-sdk prefix of Step Functions is Sfn, not SFN, and S3
    // has no modeled SlowDown or InternalError for HeadObject.
    for (const name of [...retried(BATCH_STATES.describe), ...retried(BATCH_STATES.run)]) {
      expect(name).not.toMatch(/^SFN\.|^S3\.(SlowDown|InternalError)/);
    }
    // A missing key is not retried: it is caught into the item's failure at once.
    expect(retried(BATCH_STATES.describe)).not.toContain("S3.NoSuchKeyException");
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() =>
      buildVoicemailBatchDefinition({ functionArns, voicemailStateMachineArn, maxConcurrency: 0 }),
    ).toThrow(RangeError);
  });
});

describe("voicemailBatchRulePattern", () => {
  it("matches Object Created in the bucket under incoming/batches/", () => {
    expect(voicemailBatchRulePattern("b")).toEqual({
      source: ["aws.s3"],
      "detail-type": ["Object Created"],
      detail: { bucket: { name: ["b"] }, object: { key: [{ prefix: BATCH_INCOMING_PREFIX }] } },
    });
  });
});
