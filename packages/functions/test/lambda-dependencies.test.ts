import { readFileSync } from "node:fs";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { lambdaDependencies } from "../src/lambda/lambda-dependencies";

const bucket = `voxtrail-lambda-${Date.now()}`;
const policy = readFileSync(new URL("../../../config/boundary-policy/dev.json", import.meta.url), "utf8");

/** A stage function's environment as the stack sets it, with AWS pointed at moto. */
function environment(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    AWS_REGION: "us-east-1",
    VOXTRAIL_STAGE: "dev",
    VOXTRAIL_BUCKET: bucket,
    VOXTRAIL_EVENT_BUS: "voxtrail-dev-outcomes",
    VOXTRAIL_BOUNDARY_POLICY: policy,
    VOXTRAIL_TRANSCRIBER: "cartesia-ink",
    CARTESIA_API_KEY: "sk_test_not_a_real_key",
    VOXTRAIL_REASONER: "local",
    VOXTRAIL_RECORDS: "s3",
    VOXTRAIL_RECORDS_URI: `s3://${bucket}/records/records.jsonl`,
    VOXTRAIL_SYNTHESIZER: "sonic-sagemaker",
    VOXTRAIL_SONIC_ENDPOINT: "sonic-dev",
    VOXTRAIL_VOICE_ID: "bf0a246a-8642-498a-9950-80c35e9276b5",
    ...overrides,
  };
}

describe("lambdaDependencies", () => {
  beforeAll(async () => {
    const s3 = new S3Client(motoClientConfig());
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const records = readFileSync(new URL("../../../fixtures/records/records.jsonl", import.meta.url));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "records/records.jsonl", Body: records }));
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  function useMoto() {
    const { endpoint, credentials } = motoClientConfig();
    vi.stubEnv("AWS_ENDPOINT_URL", endpoint);
    vi.stubEnv("AWS_ACCESS_KEY_ID", credentials.accessKeyId);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey);
    vi.stubEnv("AWS_REGION", "us-east-1");
  }

  it("builds the cloud dependencies from the environment the stack sets", async () => {
    useMoto();
    const deps = await lambdaDependencies(environment());
    expect(deps.store.bucket).toBe(bucket);
    expect(deps.compute).toEqual({ kind: "aws-account", service: "lambda", region: "us-east-1" });
    expect(deps.transcriber.processor.boundary).toMatchObject({ kind: "third-party" });
    expect(deps.synthesizer.processor.boundary).toMatchObject({ kind: "aws-account", service: "sagemaker" });
    expect(deps.reasoner.processor.boundary).toEqual({ kind: "local" });
    expect(await deps.records.find({ orderNumber: "4271" })).toMatchObject({ matchedOn: "orderNumber" });
    expect(JSON.stringify(deps.transcriber.processor)).not.toContain("sk_test");
  });

  it("refuses an embedded engine that needs this machine, naming the variable to set", async () => {
    useMoto();
    await expect(lambdaDependencies(environment({ VOXTRAIL_TRANSCRIBER: "local" }))).rejects.toMatchObject({
      name: "InvalidInput",
      message: expect.stringMatching(/VOXTRAIL_TRANSCRIBER to cartesia-ink/),
    });
  });

  it("refuses to start without a boundary policy", async () => {
    useMoto();
    await expect(
      lambdaDependencies(environment({ VOXTRAIL_BOUNDARY_POLICY: '{"not":"a policy"}' })),
    ).rejects.toMatchObject({ name: "BoundaryPolicyInvalid" });
    await expect(lambdaDependencies(environment({ VOXTRAIL_BUCKET: "" }))).rejects.toMatchObject({
      message: "VOXTRAIL_BUCKET is not set",
    });
  });
});
