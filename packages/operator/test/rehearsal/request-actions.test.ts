import { describe, expect, it } from "vitest";
import { requestActions, signingOf, UnmappedRequest } from "../../src/rehearsal/request-actions";

const scope = { account: "123456789012", region: "eu-west-1" };
const json = (service: string, target: string, body: unknown) =>
  requestActions(
    service,
    {
      method: "POST",
      url: "/",
      headers: { "x-amz-target": target },
      body: Buffer.from(JSON.stringify(body)),
    },
    scope,
  );

/** A start as the Transcribe function sends it, without job queueing. */
const START_TRANSCRIPTION_JOB = {
  TranscriptionJobName: "voxtrail-production-vm-1-run-1",
  LanguageCode: "en-US",
  Media: { MediaFileUri: "s3://b/artifacts/vm-1/normalized.wav" },
  OutputBucketName: "b",
  OutputKey: "artifacts/vm-1/transcribe-output.json",
};

describe("IAM actions of the requests the pipeline sends", () => {
  it("reads the signing service and key id from a SigV4 Authorization header", () => {
    const authorization =
      "AWS4-HMAC-SHA256 Credential=AKREHEARSAL0001/20261201/eu-west-1/s3/aws4_request, SignedHeaders=host, Signature=abc";
    expect(signingOf({ authorization })).toEqual({ accessKeyId: "AKREHEARSAL0001", service: "s3" });
    expect(() => signingOf({})).toThrow(UnmappedRequest);
  });

  it("takes JSON-protocol resources from the body: executions, buses by name or ARN, parameters", () => {
    expect(
      json("states", "AWSStepFunctions.DescribeExecution", {
        executionArn: "arn:aws:states:eu-west-1:123456789012:execution:m:1",
      }).permissions,
    ).toEqual([
      { action: "states:DescribeExecution", resource: "arn:aws:states:eu-west-1:123456789012:execution:m:1" },
    ]);
    expect(
      json("events", "AWSEvents.PutEvents", { Entries: [{ EventBusName: "outcomes" }, {}] }).permissions,
    ).toEqual([
      { action: "events:PutEvents", resource: "arn:aws:events:eu-west-1:123456789012:event-bus/outcomes" },
      { action: "events:PutEvents", resource: "arn:aws:events:eu-west-1:123456789012:event-bus/default" },
    ]);
    expect(
      json("ssm", "AmazonSSM.GetParameter", { Name: "/voxtrail/dev/resources" }).permissions[0]?.resource,
    ).toBe("arn:aws:ssm:eu-west-1:123456789012:parameter/voxtrail/dev/resources");
  });

  it("requires both SageMaker actions for a streamed invocation, and the endpoint's lower-case ARN", () => {
    const actions = requestActions(
      "sagemaker",
      { method: "POST", url: "/endpoints/Voxtrail-Dev-Sonic/invocations-response-stream", headers: {} },
      scope,
    );
    expect(actions.permissions).toEqual([
      {
        action: "sagemaker:InvokeEndpoint",
        resource: "arn:aws:sagemaker:eu-west-1:123456789012:endpoint/voxtrail-dev-sonic",
      },
      {
        action: "sagemaker:InvokeEndpointWithResponseStream",
        resource: "arn:aws:sagemaker:eu-west-1:123456789012:endpoint/voxtrail-dev-sonic",
      },
    ]);
  });

  it("maps Amazon Transcribe: the job's ARN for Get and Delete; for a start, `*` with its condition keys and the caller's S3 access to the media and the output", () => {
    const job = "arn:aws:transcribe:eu-west-1:123456789012:transcription-job/voxtrail-production-vm-1-run-1";
    for (const operation of ["GetTranscriptionJob", "DeleteTranscriptionJob"]) {
      expect(
        json("transcribe", `Transcribe.${operation}`, {
          TranscriptionJobName: "voxtrail-production-vm-1-run-1",
        }),
      ).toEqual({
        service: "transcribe",
        operation,
        permissions: [{ action: `transcribe:${operation}`, resource: job }],
      });
    }
    const start = START_TRANSCRIPTION_JOB;
    // StartTranscriptionJob takes no resource type: IAM authorizes it on `*`, by its condition
    // keys; Transcribe reads the media and writes the output with the caller's permissions.
    expect(json("transcribe", "Transcribe.StartTranscriptionJob", start)).toEqual({
      service: "transcribe",
      operation: "StartTranscriptionJob",
      permissions: [
        {
          action: "transcribe:StartTranscriptionJob",
          resource: "*",
          context: {
            "transcribe:OutputBucketName": "b",
            "transcribe:OutputKey": "artifacts/vm-1/transcribe-output.json",
          },
        },
        { action: "s3:GetObject", resource: "arn:aws:s3:::b/artifacts/vm-1/normalized.wav" },
        { action: "s3:PutObject", resource: "arn:aws:s3:::b/artifacts/vm-1/transcribe-output.json" },
      ],
    });
    // Without a key the output is <job>.json at the bucket's root, or in the key's folder.
    const { OutputKey: _, ...withoutKey } = start;
    expect(json("transcribe", "Transcribe.StartTranscriptionJob", withoutKey).permissions[2]).toEqual({
      action: "s3:PutObject",
      resource: "arn:aws:s3:::b/voxtrail-production-vm-1-run-1.json",
    });
    expect(
      json("transcribe", "Transcribe.StartTranscriptionJob", { ...start, OutputKey: "out/" }).permissions[2],
    ).toEqual({ action: "s3:PutObject", resource: "arn:aws:s3:::b/out/voxtrail-production-vm-1-run-1.json" });
    // Without an output bucket the output goes to the service's own: no S3 write of the caller's.
    const { OutputBucketName: __, ...serviceBucket } = withoutKey;
    expect(
      json("transcribe", "Transcribe.StartTranscriptionJob", serviceBucket).permissions.map((p) => p.action),
    ).toEqual(["transcribe:StartTranscriptionJob", "s3:GetObject"]);
    // What the pipeline never sends is refused: another operation.
    expect(() => json("transcribe", "Transcribe.ListTranscriptionJobs", {})).toThrow(UnmappedRequest);
  });

  it("maps a queued start: the caller passes the data-access role to Transcribe, whose S3 access is the role's", () => {
    const role = "arn:aws:iam::123456789012:role/voxtrail-production-transcribe-data-access";
    const start = {
      ...START_TRANSCRIPTION_JOB,
      JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: role },
    };
    expect(json("transcribe", "Transcribe.StartTranscriptionJob", start).permissions.slice(1)).toEqual([
      {
        action: "iam:PassRole",
        resource: role,
        context: { "iam:PassedToService": "transcribe.amazonaws.com" },
      },
      { action: "s3:GetObject", resource: "arn:aws:s3:::b/artifacts/vm-1/normalized.wav", assumedRole: role },
      {
        action: "s3:PutObject",
        resource: "arn:aws:s3:::b/artifacts/vm-1/transcribe-output.json",
        assumedRole: role,
      },
    ]);
  });

  it("maps the lineage signer's KMS calls to kms:Sign and kms:GetPublicKey on the key's ARN, by ARN or id, never an alias", () => {
    const arn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    expect(json("kms", "TrentService.Sign", { KeyId: arn, Message: "AA==" })).toEqual({
      service: "kms",
      operation: "Sign",
      permissions: [{ action: "kms:Sign", resource: arn }],
    });
    expect(
      json("kms", "TrentService.GetPublicKey", { KeyId: "1234abcd-12ab-34cd-56ef-1234567890ab" }).permissions,
    ).toEqual([{ action: "kms:GetPublicKey", resource: arn }]);
    expect(() => json("kms", "TrentService.Sign", { KeyId: "alias/lineage" })).toThrow(UnmappedRequest);
    expect(() => json("kms", "TrentService.Decrypt", { KeyId: arn })).toThrow(/no IAM mapping/);
  });

  it("refuses to map what it does not know, or what would need no permission, so no call is waved through", () => {
    expect(() => json("states", "AWSStepFunctions.DeleteStateMachine", {})).toThrow(/no IAM mapping/);
    expect(() => json("events", "AWSEvents.PutEvents", { Entries: [] })).toThrow(/needs no permission/);
    expect(() => requestActions("s3", { method: "GET", url: "/b/k?website", headers: {} }, scope)).toThrow(
      UnmappedRequest,
    );
    expect(() => requestActions("dynamodb", { method: "POST", url: "/", headers: {} }, scope)).toThrow(
      UnmappedRequest,
    );
  });
});
