import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import {
  ChecksumMode,
  CreateBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { StoreAccessDenied } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { retentionFrom, S3Store } from "../src/index";
import type { ObjectRetention } from "../src/s3-store";
import { describeObjectStoreContract } from "./object-store-contract";
import { S3AccessProxy } from "./s3-access-proxy";

const MiB = 1024 * 1024;
const client = new S3Client(motoClientConfig());

async function createBucket(options: { versioned?: boolean } = {}): Promise<string> {
  const bucket = `voxtrail-storage-${randomUUID()}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  if (options.versioned) {
    await client.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: "Enabled" } }),
    );
  }
  return bucket;
}

afterAll(() => {
  client.destroy();
});

// Versioned, as the stacks' buckets are.
describeObjectStoreContract(
  "S3Store",
  async () => new S3Store({ client, bucket: await createBucket({ versioned: true }) }),
);

describe("S3Store", () => {
  let bucket: string;
  let store: S3Store;

  beforeAll(async () => {
    bucket = await createBucket();
    store = new S3Store({ client, bucket });
  });

  it("uri is s3://bucket/key", () => {
    expect(store.bucket).toBe(bucket);
    expect(store.uri("incoming/a b/ü.wav")).toBe(`s3://${bucket}/incoming/a b/ü.wav`);
  });

  // S3 verifies the checksum and refuses a body that does not match it (BadDigest); moto 5.2 stores
  // whatever checksum it is sent without verifying it, so only the sending is tested here.
  it("a bytes put stores the sha256 as metadata and sends ChecksumSHA256", async () => {
    const body = Buffer.from("checked");
    const digest = createHash("sha256").update(body).digest();
    await store.put("checked.txt", body, { contentType: "text/plain" });
    const head = await client.send(
      new HeadObjectCommand({ Bucket: bucket, Key: "checked.txt", ChecksumMode: ChecksumMode.ENABLED }),
    );
    expect(head.Metadata).toEqual({ sha256: digest.toString("hex") });
    expect(head.ChecksumSHA256).toBe(digest.toString("base64"));
    expect((await store.head("checked.txt"))?.sha256).toBe(digest.toString("hex"));
  });

  it("head reads the call language an uploader set as metadata (x-amz-meta-language), and nothing without it", async () => {
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: "incoming/voicemail/es.wav",
        Body: "x",
        Metadata: { language: "es-US" },
      }),
    );
    expect((await store.head("incoming/voicemail/es.wav"))?.language).toBe("es-US");
    await store.put("incoming/voicemail/plain.wav", "x", { contentType: "audio/wav" });
    expect(await store.head("incoming/voicemail/plain.wav")).not.toHaveProperty("language");
  });

  it("a large Readable goes up as a multipart upload; head has no sha256 for it", async () => {
    const chunks = Array.from({ length: 12 }, () => randomBytes(MiB));
    const stored = await store.put("multipart.bin", Readable.from(chunks), {
      contentType: "application/octet-stream",
    });
    // A multipart etag is "<md5 of the part md5s>-<part count>": 12 MiB in 5 MiB parts is 3.
    expect(stored.etag).toMatch(/^"[0-9a-f]{32}-3"$/);
    expect(stored.sha256).toBe(createHash("sha256").update(Buffer.concat(chunks)).digest("hex"));
    const head = await store.head("multipart.bin");
    expect(head).toMatchObject({ bytes: 12 * MiB, etag: stored.etag });
    expect(head?.sha256).toBeUndefined();
  });

  it("a failed multipart upload is aborted", async () => {
    const failing = Readable.from(
      (async function* () {
        yield* Array.from({ length: 11 }, () => randomBytes(MiB));
        throw new Error("source broke");
      })(),
    );
    await expect(store.put("aborted.bin", failing, { contentType: "audio/wav" })).rejects.toThrow(
      "source broke",
    );
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  it("put to a missing bucket rejects, for bytes and for streams", async () => {
    const missing = new S3Store({ client, bucket: `voxtrail-missing-${randomUUID()}` });
    await expect(missing.put("k", "v", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "NoSuchBucket",
    });
    await expect(
      missing.put("k", Readable.from(Array.from({ length: 12 }, () => randomBytes(MiB))), {
        contentType: "text/plain",
      }),
    ).rejects.toMatchObject({ name: "NoSuchBucket" });
    await expect(missing.get("k")).rejects.toMatchObject({ name: "NoSuchBucket" });
  });

  it("retains objects under the configured prefixes with Object Lock, and caller data not at all", async () => {
    const locked = `voxtrail-locked-${randomUUID()}`;
    await client.send(new CreateBucketCommand({ Bucket: locked, ObjectLockEnabledForBucket: true }));
    const now = new Date("2026-12-02T00:00:00.000Z");
    const retained = new S3Store({
      client,
      bucket: locked,
      retention: { ...(retentionFrom("COMPLIANCE:30", ["lineage/"]) as ObjectRetention), now: () => now },
    });
    const record = await retained.put("lineage/vm-1/ingest-01.json", "{}", {
      contentType: "application/json",
    });
    const audio = await retained.put("incoming/voicemail/a.wav", "RIFF", { contentType: "audio/wav" });
    // HeadObject reports an object's retention (moto 5.2's GetObjectRetention answer does not parse).
    const lockOf = async (key: string, versionId: string | undefined) => {
      const head = await client.send(
        new HeadObjectCommand({ Bucket: locked, Key: key, VersionId: versionId }),
      );
      return { mode: head.ObjectLockMode, until: head.ObjectLockRetainUntilDate };
    };
    expect(await lockOf(record.key, record.versionId)).toEqual({
      mode: "COMPLIANCE",
      until: new Date(now.getTime() + 30 * 86_400_000),
    });
    expect(await lockOf(audio.key, audio.versionId)).toEqual({ mode: undefined, until: undefined });
    // The caller's audio can be erased for good; the record cannot.
    await retained.delete(audio.key, { versionId: audio.versionId as string });
    expect(await retained.versions(audio.key)).toEqual([]);
    await expect(retained.delete(record.key, { versionId: record.versionId as string })).rejects.toThrow();
    expect(await retained.versions(record.key)).toHaveLength(1);
  });

  it("parses a retention setting, refusing anything but MODE:DAYS", () => {
    expect(retentionFrom(undefined, ["lineage/"])).toBeUndefined();
    expect(retentionFrom("GOVERNANCE:365", ["lineage/"])).toEqual({
      prefixes: ["lineage/"],
      mode: "GOVERNANCE",
      days: 365,
    });
    for (const bad of ["GOVERNANCE", "LEGAL:3", "COMPLIANCE:0", "COMPLIANCE:-1", "compliance:3"]) {
      expect(() => retentionFrom(bad, ["lineage/"]), bad).toThrow(RangeError);
    }
  });

  it("lists more than one page of keys", async () => {
    const prefix = `paged-${randomUUID()}/`;
    const keys = Array.from({ length: 1005 }, (_, index) => `${prefix}${String(index).padStart(4, "0")}`);
    for (let start = 0; start < keys.length; start += 50) {
      await Promise.all(
        keys.slice(start, start + 50).map((key) => store.put(key, "x", { contentType: "text/plain" })),
      );
    }
    expect(await store.list(prefix)).toEqual(keys);
  });

  describe("on a versioned bucket", () => {
    let versioned: S3Store;

    beforeAll(async () => {
      versioned = new S3Store({ client, bucket: await createBucket({ versioned: true }) });
    });

    it("put returns the versionId, for bytes and for streams, and head reports it", async () => {
      const first = await versioned.put("v.txt", "one", { contentType: "text/plain" });
      const second = await versioned.put("v.txt", Readable.from([Buffer.from("two")]), {
        contentType: "text/plain",
      });
      expect(first.versionId).toEqual(expect.any(String));
      expect(second.versionId).toEqual(expect.any(String));
      expect(second.versionId).not.toBe(first.versionId);
      expect((await versioned.head("v.txt"))?.versionId).toBe(second.versionId);
    });

    it("reads the version an event named, whatever was uploaded to the key since", async () => {
      const first = await versioned.put("event.txt", "first caller", { contentType: "text/plain" });
      await versioned.put("event.txt", "second caller", { contentType: "text/plain" });
      const named = { versionId: first.versionId, etag: first.etag };
      expect((await versioned.getBytes("event.txt", named)).toString()).toBe("first caller");
      expect(await versioned.head("event.txt", named)).toMatchObject({
        versionId: first.versionId,
        bytes: 12,
      });
      expect(await versioned.head("event.txt", { versionId: "no-such-version" })).toBeUndefined();
    });

    it("after delete, head is undefined and get rejects with ObjectNotFound", async () => {
      await versioned.put("d.txt", "x", { contentType: "text/plain" });
      await versioned.delete("d.txt");
      expect(await versioned.head("d.txt")).toBeUndefined();
      await expect(versioned.get("d.txt")).rejects.toMatchObject({ name: "ObjectNotFound" });
    });
  });
});

// Without s3:ListBucket, S3 answers GET and HEAD of a missing key with 403, not 404 (moto always
// says 404): a proxy in front of moto answers as S3 does, to the real SDK.
describe("S3Store when S3 answers 403", () => {
  let proxy: S3AccessProxy;
  let denied: S3Client;
  let bucket: string;

  beforeAll(async () => {
    bucket = await createBucket();
    proxy = await S3AccessProxy.start(motoClientConfig().endpoint, (r) => r.key.startsWith("reports/"));
    denied = new S3Client({ ...motoClientConfig(), endpoint: proxy.endpoint, maxAttempts: 1 });
  });
  afterAll(async () => {
    denied.destroy();
    await proxy.close();
  });

  it("moto, asked directly, says 404: head is undefined and get ObjectNotFound", async () => {
    const store = new S3Store({ client, bucket });
    expect(await store.head("reports/vm-1/report.json")).toBeUndefined();
    await expect(store.get("reports/vm-1/report.json")).rejects.toMatchObject({ name: "ObjectNotFound" });
  });

  it.each([
    ["head", "HeadObject", (store: S3Store, key: string) => store.head(key)],
    ["get", "GetObject", (store: S3Store, key: string) => store.get(key)],
    ["getBytes", "GetObject", (store: S3Store, key: string) => store.getBytes(key)],
  ] as const)(
    "%s never takes a 403 as absent: StoreAccessDenied naming %s and the prefix",
    async (_, operation, read) => {
      const store = new S3Store({ client: denied, bucket });
      await new S3Store({ client, bucket }).put("reports/present.json", "{}", {
        contentType: "application/json",
      });
      for (const key of ["reports/vm-caller-words/report.json", "reports/present.json"]) {
        const error = await read(store, key).then(
          (value) => value,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StoreAccessDenied);
        expect(error).toMatchObject({ name: "StoreAccessDenied", retryable: false });
        const { message } = error as Error;
        expect(message).toMatch(new RegExp(`^S3 ${operation} under prefix "reports/" was denied \\(403\\)`));
        expect(message).toContain(
          'needs s3:ListBucket on prefix "reports/" to tell a missing key from a forbidden one',
        );
        expect(message).not.toContain("caller-words");
        expect(message).not.toContain("present");
      }
    },
  );

  it("names no part of a key that has no prefix", async () => {
    proxy.deny(() => true);
    try {
      const error = await new S3Store({ client: denied, bucket }).head("maria-lopez.wav").catch((e) => e);
      expect(error).toBeInstanceOf(StoreAccessDenied);
      expect((error as Error).message).toMatch(/^S3 HeadObject under the bucket's top level was denied/);
      expect((error as Error).message).not.toContain("maria");
    } finally {
      proxy.deny((r) => r.key.startsWith("reports/"));
    }
  });
});
