import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { InvalidInput, ObjectNotFound } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { motoClientConfig } from "../../../../test/setup/aws";
import { JsonlRecordLookup } from "../../src/records/jsonl-record-lookup";
import { S3RecordLookup } from "../../src/records/s3-records";

// S3RecordLookup through the real S3 client against moto_server, over the fixture records.

const client = new S3Client(motoClientConfig());
const bucket = `records-${randomUUID()}`;
const FIXTURE = new URL("../../../../fixtures/records/records.jsonl", import.meta.url);
let jsonl: string;

beforeAll(async () => {
  jsonl = await readFile(FIXTURE, "utf8");
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(() => client.destroy());

async function put(key: string, body: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

describe("S3RecordLookup", () => {
  test("finds the same records as the local lookup over the same lines", async () => {
    await put("records/same.jsonl", jsonl);
    const s3 = await S3RecordLookup.open({ client, bucket, key: "records/same.jsonl" });
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
    const s3 = await S3RecordLookup.open({ client, bucket, key: "records/p.jsonl" });
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
    const s3 = await S3RecordLookup.open({ client, bucket, key });
    const before = s3.processor.version;
    const etag = s3.etag;
    expect(await s3.refresh()).toBe(false);
    expect(s3.etag).toBe(etag);
    expect(await s3.find({ orderNumber: "5150" })).toBeUndefined();

    await put(key, `${jsonl.trimEnd()}\n{"type":"order","id":"ord-5150","orderNumber":"5150"}\n`);
    expect(await s3.refresh()).toBe(true);
    expect(s3.etag).not.toBe(etag);
    expect(s3.processor.version).not.toBe(before);
    expect(await s3.find({ orderNumber: "5150" })).toMatchObject({ record: { id: "ord-5150" } });
  });

  test("a missing object is ObjectNotFound; a line that is not a record is InvalidInput", async () => {
    await expect(S3RecordLookup.open({ client, bucket, key: "records/none.jsonl" })).rejects.toThrow(
      ObjectNotFound,
    );
    await put("records/bad.jsonl", '{"type":"order","id":"ord-1"}\n{"type":"invoice"}\n');
    await expect(S3RecordLookup.open({ client, bucket, key: "records/bad.jsonl" })).rejects.toThrow(
      InvalidInput,
    );
  });
});
