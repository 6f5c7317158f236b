import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import {
  CreateBucketCommand,
  GetObjectCommand,
  GetObjectTorrentCommand,
  HeadObjectCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AuthorizingProxy, type CallRecord } from "../../src/rehearsal/authorizing-proxy";
import { PolicyEvaluator } from "../../src/rehearsal/policy-evaluator";
import type { RolePlan } from "../../src/rehearsal/stage-plan";

const account = "123456789012";
const bucket = `proxy-${Date.now()}`;
const object = (key: string) => `arn:aws:s3:::${bucket}/${key}`;

/** A role that may read `artifacts/*`, write `lineage/*`, and list `claims/` only. */
const role: RolePlan = {
  logicalName: "WorkerRole",
  arn: `arn:aws:iam::${account}:role/worker`,
  trustPolicy: {
    Version: "2012-10-17",
    Statement: [
      { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
    ],
  },
  managedPolicies: [],
  policies: [
    {
      name: "inline",
      document: {
        Version: "2012-10-17",
        Statement: [
          {
            Effect: "Allow",
            Action: ["s3:GetObject"],
            Resource: [object("artifacts/*"), object("claims/*")],
          },
          { Effect: "Allow", Action: ["s3:PutObject"], Resource: [object("lineage/*")] },
          {
            Effect: "Allow",
            Action: ["s3:ListBucket"],
            Resource: [`arn:aws:s3:::${bucket}`],
            Condition: { StringLike: { "s3:prefix": ["claims/*"] } },
          },
        ],
      },
    },
  ],
};

let proxy: AuthorizingProxy;
const calls: CallRecord[] = [];
const client = (accessKeyId: string) => ({
  endpoint: proxy.url,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId, secretAccessKey: "x" },
});

beforeAll(async () => {
  const moto = inject("motoEndpoint");
  proxy = await AuthorizingProxy.start({
    evaluator: new PolicyEvaluator({ account, bucket, bucketPolicy: undefined }),
    scope: { account, region: "us-east-1" },
    principals: new Map([["AKWORKER", { label: "Worker", role }]]),
    setupAccessKeyId: "AKSETUP",
    upstreams: { s3: moto, events: moto },
    onCall: (call) => calls.push(call),
  });
  const setup = new S3Client(client("AKSETUP"));
  await setup.send(new CreateBucketCommand({ Bucket: bucket }));
  await setup.send(new PutObjectCommand({ Bucket: bucket, Key: "artifacts/j1/transcript.json", Body: "{}" }));
});

afterAll(async () => {
  await proxy.close();
});

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (error: { name: string; $metadata?: { httpStatusCode?: number }; message: string }) => error,
  );
}

describe("the rehearsal's IAM proxy in front of moto", () => {
  const worker = () => new S3Client(client("AKWORKER"));

  it("forwards what the role's policy allows and says which statement allowed it", async () => {
    const read = await worker().send(
      new GetObjectCommand({ Bucket: bucket, Key: "artifacts/j1/transcript.json" }),
    );
    expect(await read.Body?.transformToString()).toBe("{}");
    expect(calls.at(-1)).toMatchObject({
      principal: "Worker",
      operation: "GetObject",
      allowed: true,
      decisions: [{ action: "s3:GetObject", statement: { policy: "inline", index: 1 } }],
    });
  });

  it("answers AccessDenied as S3 does for what no statement allows, and moto never sees it", async () => {
    const denied = await failure(
      worker().send(new PutObjectCommand({ Bucket: bucket, Key: "artifacts/j1/transcript.json", Body: "x" })),
    );
    expect(denied).toMatchObject({ name: "AccessDenied", $metadata: { httpStatusCode: 403 } });
    expect(denied?.message).toMatch(
      /not authorized to perform: s3:PutObject on resource: "arn:aws:s3:::.*transcript.json"/,
    );
    const unchanged = await new S3Client(client("AKSETUP")).send(
      new GetObjectCommand({ Bucket: bucket, Key: "artifacts/j1/transcript.json" }),
    );
    expect(await unchanged.Body?.transformToString()).toBe("{}");
  });

  it("answers 403, not 404, for a missing key the role may not list, and 404 where it may", async () => {
    const hidden = await failure(
      worker().send(new HeadObjectCommand({ Bucket: bucket, Key: "artifacts/j9/none.json" })),
    );
    expect(hidden?.$metadata?.httpStatusCode).toBe(403);
    expect(calls.at(-1)).toMatchObject({
      allowed: false,
      modelled: expect.stringMatching(/missing key answered 403/),
    });
    const listed = await failure(
      worker().send(new GetObjectCommand({ Bucket: bucket, Key: "claims/j9/run-01.json" })),
    );
    expect(listed).toMatchObject({ name: "NoSuchKey", $metadata: { httpStatusCode: 404 } });
    expect(calls.at(-1)?.decisions.map((d) => [d.action, d.allowed])).toEqual([
      ["s3:GetObject", true],
      ["s3:ListBucket", true],
    ]);
  });

  it("authorizes an object's ACL as s3:PutObjectAcl, which the role's s3:PutObject does not grant", async () => {
    const denied = await failure(
      worker().send(
        new PutObjectAclCommand({ Bucket: bucket, Key: "lineage/j1/ingest-01.json", ACL: "private" }),
      ),
    );
    expect(denied).toMatchObject({ name: "AccessDenied", $metadata: { httpStatusCode: 403 } });
    expect(denied?.message).toMatch(/not authorized to perform: s3:PutObjectAcl on resource/);
    expect(calls.at(-1)).toMatchObject({ operation: "PutObjectAcl", allowed: false });
  });

  it("refuses a request it cannot map, naming its method and subresource, and records it as unmapped", async () => {
    const refused = await failure(
      worker().send(new GetObjectTorrentCommand({ Bucket: bucket, Key: "artifacts/j1/transcript.json" })),
    );
    expect(refused).toMatchObject({ name: "AccessDenied", $metadata: { httpStatusCode: 403 } });
    expect(refused?.message).toBe("rehearsal: no IAM mapping for S3 GET on an object with ?torrent");
    expect(calls.at(-1)).toEqual({
      principal: "Worker",
      service: "s3",
      operation: "unknown",
      allowed: false,
      decisions: [],
      refusal: "no IAM mapping for S3 GET on an object with ?torrent",
      unmapped: true,
    });
  });

  it("answers the JSON protocols' AccessDeniedException, and refuses an unknown key id", async () => {
    const events = new EventBridgeClient(client("AKWORKER"));
    const denied = await failure(
      events.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: "b", Source: "s", DetailType: "d", Detail: "{}" }],
        }),
      ),
    );
    expect(denied?.name).toBe("AccessDeniedException");
    const stranger = await failure(
      new S3Client(client("AKSTRANGER")).send(
        new GetObjectCommand({ Bucket: bucket, Key: "artifacts/j1/transcript.json" }),
      ),
    );
    expect(stranger?.$metadata?.httpStatusCode).toBe(403);
  });
});
