import aslValidator from "asl-validator";
import { describe, expect, it } from "vitest";
import {
  BATCH_INCOMING_PREFIX,
  BATCH_STATES,
  buildVoicemailBatchDefinition,
  voicemailBatchRulePattern,
} from "../src";

const voicemailStateMachineArn = "arn:aws:states:us-east-1:123456789012:stateMachine:voxtrail-test-voicemail";

describe("buildVoicemailBatchDefinition", () => {
  const definition = buildVoicemailBatchDefinition({ voicemailStateMachineArn, maxConcurrency: 4 });
  /** The parts of the Map state these tests read. */
  type MapState = {
    ItemReader: unknown;
    ItemProcessor: { ProcessorConfig: unknown; States: Record<string, unknown> };
    MaxConcurrency: number;
    ToleratedFailurePercentage: number;
    ResultWriter: { Resource: string };
  };
  const map = definition.States[BATCH_STATES.map] as unknown as MapState;
  const processor = map.ItemProcessor.States;

  it("is valid Amazon States Language", () => {
    const { isValid, errorsText } = aslValidator(structuredClone(definition));
    expect(errorsText()).toBe("");
    expect(isValid).toBe(true);
  });

  it("reads the manifest that started it as CSV, bounded by MaxConcurrency, tolerating failures", () => {
    expect(map.ItemReader).toMatchObject({
      Resource: "arn:aws:states:::s3:getObject",
      ReaderConfig: { InputType: "CSV", CSVHeaderLocation: "FIRST_ROW" },
      Parameters: { "Bucket.$": "$.detail.bucket.name", "Key.$": "$.detail.object.key" },
    });
    expect(map.ItemProcessor.ProcessorConfig).toEqual({ Mode: "DISTRIBUTED", ExecutionType: "STANDARD" });
    expect(map.MaxConcurrency).toBe(4);
    expect(map.ToleratedFailurePercentage).toBe(100);
    expect(map.ResultWriter.Resource).toBe("arn:aws:states:::s3:putObject");
  });

  it("runs the voicemail workflow on the event an upload of each key makes, waiting for it", () => {
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
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() => buildVoicemailBatchDefinition({ voicemailStateMachineArn, maxConcurrency: 0 })).toThrow(
      RangeError,
    );
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
