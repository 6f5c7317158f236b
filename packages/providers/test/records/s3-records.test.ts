import { readFile } from "node:fs/promises";
import { S3Client } from "@aws-sdk/client-s3";
import { InvalidInput, ObjectNotFound, StoreAccessDenied } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { motoClientConfig } from "../../../../test/setup/aws";
import { S3AccessProxy } from "../../../storage/test/s3-access-proxy";
import { JsonlRecordLookup } from "../../src/records/jsonl-record-lookup";
import { S3RecordLookup, UNREAD_RECORDS_VERSION } from "../../src/records/s3-records";
import { motoBucket } from "./moto-bucket";

// S3RecordLookup through the real S3 client against moto_server, over the fixture records.

const { client, bucket, put } = motoBucket();
const FIXTURE = new URL("../../../../fixtures/records/records.jsonl", import.meta.url);
let jsonl: string;

beforeAll(async () => {
  jsonl = await readFile(FIXTURE, "utf8");
});

describe("S3RecordLookup", () => {
  test("finds the same records as the local lookup over the same lines", async () => {
    await put("records/same.jsonl", jsonl);
    const s3 = await S3RecordLookup.create({ client, bucket, key: "records/same.jsonl" });
    const local = new JsonlRecordLookup(jsonl);
    const matched: string[] = [];
    for (const entities of [
      { orderNumber: "4271" },
      { accountNumber: "77-20" },
      { callbackNumber: "(555) 867-2341" },
      { orderNumber: "0000", callbackNumber: "555 202 9814" },
      { orderNumber: "0000" },
    ]) {
      const found = await s3.find(entities);
      expect(found).toEqual(await local.find(entities));
      if (found) matched.push(found.record.id);
    }
    expect(matched).toEqual(["ord-4271", "acct-7720", "acct-7720", "acct-8153"]);
    expect(await s3.find({ orderNumber: "4271" })).toMatchObject({
      matchedOn: "orderNumber",
      record: { id: "ord-4271" },
    });
  });

  test("declares the aws-account boundary in the client's region, the object and the records' version", async () => {
    await put("records/p.jsonl", jsonl);
    const s3 = await S3RecordLookup.create({ client, bucket, key: "records/p.jsonl" });
    await s3.load();
    expect(s3.processor).toEqual({
      provider: "s3-records",
      model: new JsonlRecordLookup(jsonl).processor.model,
      version: new JsonlRecordLookup(jsonl).processor.version,
      endpoint: `s3://${bucket}/records/p.jsonl`,
      boundary: { kind: "aws-account", service: "s3", region: "us-east-1" },
    });
  });

  test("refresh keeps the records while the ETag matches, and loads the new version once it changed", async () => {
    const key = "records/r.jsonl";
    await put(key, jsonl);
    const s3 = await S3RecordLookup.create({ client, bucket, key });
    expect(await s3.refresh()).toBe(true); // the first use reads the object
    const before = s3.processor.version;
    const etag = s3.etag;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await s3.refresh()).toBe(false);
    expect(s3.etag).toBe(etag);
    expect(await s3.find({ orderNumber: "5150" })).toBeUndefined();

    await put(key, `${jsonl.trimEnd()}\n{"type":"order","id":"ord-5150","orderNumber":"5150"}\n`);
    expect(await s3.refresh()).toBe(true);
    expect(s3.etag).not.toBe(etag);
    expect(s3.processor.version).not.toBe(before);
    expect(await s3.find({ orderNumber: "5150" })).toMatchObject({ record: { id: "ord-5150" } });
  });

  test("a missing object is ObjectNotFound; a line that is not a record is InvalidInput (on first use)", async () => {
    const missing = await S3RecordLookup.create({ client, bucket, key: "records/none.jsonl" });
    await expect(missing.find({ orderNumber: "1" })).rejects.toThrow(ObjectNotFound);
    await put("records/bad.jsonl", '{"type":"order","id":"ord-1"}\n{"type":"invoice"}\n');
    const bad = await S3RecordLookup.create({ client, bucket, key: "records/bad.jsonl" });
    await expect(bad.load()).rejects.toThrow(InvalidInput);
    // The failure is not kept: once the object is fixed, the next use reads it again.
    await put("records/bad.jsonl", '{"type":"order","id":"ord-1","orderNumber":"1"}\n');
    expect(await bad.find({ orderNumber: "1" })).toMatchObject({ record: { id: "ord-1" } });
  });
});

describe("S3RecordLookup reads the object on first use, through a proxy counting S3 requests", () => {
  const key = "records/lazy.jsonl";
  let proxy: S3AccessProxy;
  let proxied: S3Client;

  beforeAll(async () => {
    await put(key, jsonl);
    proxy = await S3AccessProxy.start(motoClientConfig().endpoint);
    proxied = new S3Client({ ...motoClientConfig(), endpoint: proxy.endpoint, maxAttempts: 1 });
  });
  afterAll(async () => {
    proxied.destroy();
    await proxy.close();
  });

  test("creating it reads nothing; the first find reads once, concurrent finds share that read", async () => {
    const records = await S3RecordLookup.create({ client: proxied, bucket, key });
    expect(proxy.count("GET", key)).toBe(0);
    expect(records.processor.version).toBe(UNREAD_RECORDS_VERSION);
    expect(records.etag).toBeUndefined();
    const [a, b] = await Promise.all([
      records.find({ orderNumber: "4271" }),
      records.find({ orderNumber: "4271" }),
    ]);
    expect(a).toMatchObject({ record: { id: "ord-4271" } });
    expect(b).toEqual(a);
    expect(proxy.count("GET", key)).toBe(1);
    await records.find({ accountNumber: "77-20" });
    expect(proxy.count("GET", key)).toBe(1);
    expect(records.processor.version).toBe(new JsonlRecordLookup(jsonl).processor.version);
  });

  test("a 403 is StoreAccessDenied, never missing, and is not kept: the next use reads again", async () => {
    proxy.deny((request) => request.key === key);
    try {
      const records = await S3RecordLookup.create({ client: proxied, bucket, key });
      const before = proxy.count("GET", key);
      const error = await records.find({ orderNumber: "4271" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreAccessDenied);
      expect((error as Error).message).toContain('prefix "records/"');
      expect((error as Error).message).toContain("s3:ListBucket");
      expect((error as Error).message).not.toContain("lazy");
      proxy.deny(() => false);
      expect(await records.find({ orderNumber: "4271" })).toMatchObject({ record: { id: "ord-4271" } });
      expect(proxy.count("GET", key) - before).toBe(2);
    } finally {
      proxy.deny(() => false);
    }
  });
});
