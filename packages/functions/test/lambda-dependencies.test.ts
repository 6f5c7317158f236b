import { readFileSync } from "node:fs";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { StoreAccessDenied } from "@voxtrail/core";
import { CLOUD_BUILDERS } from "@voxtrail/providers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { S3AccessProxy } from "../../storage/test/s3-access-proxy";
import { handler as finalize } from "../src/lambda/finalize";
import { handler as ingest } from "../src/lambda/ingest";
import { EMBEDDED_IN_LAMBDA, lambdaDependencies } from "../src/lambda/lambda-dependencies";
import { handler as reason } from "../src/lambda/reason";
import { handler as transcribe } from "../src/lambda/transcribe";
import { context } from "./stage-dependencies";

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

/** The process environment of a function as the stack sets it, its AWS clients pointed at moto. */
function useStackEnvironment(overrides: Record<string, string> = {}): void {
  const { endpoint, credentials } = motoClientConfig();
  for (const [name, value] of Object.entries({
    ...environment(),
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    ...overrides,
  })) {
    vi.stubEnv(name, value ?? "");
  }
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
    const deps = await lambdaDependencies(environment(), CLOUD_BUILDERS, EMBEDDED_IN_LAMBDA);
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
    await expect(
      lambdaDependencies(environment({ VOXTRAIL_TRANSCRIBER: "local" }), CLOUD_BUILDERS, EMBEDDED_IN_LAMBDA),
    ).rejects.toMatchObject({
      name: "InvalidInput",
      message: expect.stringMatching(/VOXTRAIL_TRANSCRIBER to cartesia-ink/),
    });
  });

  it("refuses to start without a boundary policy", async () => {
    useMoto();
    await expect(
      lambdaDependencies(
        environment({ VOXTRAIL_BOUNDARY_POLICY: '{"not":"a policy"}' }),
        CLOUD_BUILDERS,
        EMBEDDED_IN_LAMBDA,
      ),
    ).rejects.toMatchObject({ name: "BoundaryPolicyInvalid" });
    await expect(
      lambdaDependencies(environment({ VOXTRAIL_BUCKET: "" }), CLOUD_BUILDERS, EMBEDDED_IN_LAMBDA),
    ).rejects.toMatchObject({
      message: "VOXTRAIL_BUCKET is not set",
    });
  });
});

describe("records in Lambda: read on first use only", () => {
  const recordsKey = "records/records.jsonl";
  let proxy: S3AccessProxy;

  beforeAll(async () => {
    // Every function gets VOXTRAIL_RECORDS=s3, but only Reason may read the records object: the
    // proxy answers the others' GetObject as S3 does without the grant (403 AccessDenied).
    proxy = await S3AccessProxy.start(motoClientConfig().endpoint);
  });
  afterAll(async () => {
    await proxy.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    proxy.deny(() => false);
  });

  function useProxy() {
    const { credentials } = motoClientConfig();
    vi.stubEnv("AWS_ENDPOINT_URL", proxy.endpoint);
    vi.stubEnv("AWS_ACCESS_KEY_ID", credentials.accessKeyId);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey);
    vi.stubEnv("AWS_REGION", "us-east-1");
  }

  it("building the dependencies reads no records, even for a role that may not read them", async () => {
    useProxy();
    proxy.deny((request) => request.method === "GET" && request.key === recordsKey);
    const before = proxy.requests.length;
    const deps = await lambdaDependencies(environment(), CLOUD_BUILDERS, EMBEDDED_IN_LAMBDA);
    expect(proxy.requests.slice(before).filter((r) => r.key === recordsKey)).toEqual([]);
    // Only a lookup reads them, and a 403 says so instead of passing for a missing object.
    await expect(deps.records.find({ orderNumber: "4271" })).rejects.toThrow(StoreAccessDenied);
    expect(proxy.requests.slice(before).filter((r) => r.key === recordsKey)).toHaveLength(1);
  });

  it("the first lookup reads the records object once, and later lookups reuse it", async () => {
    useProxy();
    const deps = await lambdaDependencies(environment(), CLOUD_BUILDERS, EMBEDDED_IN_LAMBDA);
    const before = proxy.count("GET", recordsKey);
    expect(await deps.records.find({ orderNumber: "4271" })).toMatchObject({ matchedOn: "orderNumber" });
    expect(await deps.records.find({ accountNumber: "77-20" })).toMatchObject({ matchedOn: "accountNumber" });
    expect(proxy.count("GET", recordsKey) - before).toBe(1);
  });
});

describe("a stage's Lambda entry point", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("builds the dependencies again on the invocation after one whose build failed", async () => {
    useStackEnvironment({ VOXTRAIL_BUCKET: "" });
    await expect(transcribe({ jobId: 42 }, context)).rejects.toMatchObject({
      message: "VOXTRAIL_BUCKET is not set",
    });
    vi.stubEnv("VOXTRAIL_BUCKET", bucket);
    // Built this time: the handler itself now answers (its input is malformed).
    await expect(transcribe({ jobId: 42 }, context)).rejects.toMatchObject({
      name: "InvalidInput",
      message: expect.stringMatching(/jobId/),
    });
  });

  it.each([
    ["ingest", ingest],
    ["reason", reason],
    ["finalize", finalize],
  ])(
    "the %s entry point builds its stage's dependencies from the stack's environment",
    async (_, handler) => {
      useStackEnvironment();
      // Built (the rule-based reasoner included, which runs in Lambda): the stage rejects the input.
      await expect(handler({ jobId: 42 }, context)).rejects.toMatchObject({
        name: "InvalidInput",
        message: expect.stringMatching(/input is malformed/),
      });
    },
  );
});
