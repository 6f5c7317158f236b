import { S3Client } from "@aws-sdk/client-s3";
import { ObjectNotFound, ReasoningFailed, StoreAccessDenied } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { motoClientConfig } from "../../../../test/setup/aws";
import { S3AccessProxy } from "../../../storage/test/s3-access-proxy";
import {
  readObjectText,
  readObjectTextIfChanged,
  type S3ObjectLocation,
} from "../../src/records/s3-text-object";
import { motoBucket } from "./moto-bucket";

// readObjectText through the real S3 client against moto_server.

const { client, bucket, put } = motoBucket();
const LINES =
  '{"type":"order","id":"ord-1","orderNumber":"1"}\n{"type":"account","id":"acct-café","accountNumber":"2"}\n';

describe("readObjectText, readObjectTextIfChanged", () => {
  test("reads the object's UTF-8 text with its ETag", async () => {
    await put("records/a.jsonl", LINES);
    const read = await readObjectText({ client, bucket, key: "records/a.jsonl" });
    expect(read.text).toBe(LINES);
    expect(read.etag).toMatch(/^"[0-9a-f]{32}"$/);
  });

  test("a conditional read answers undefined while the object is unchanged, the new text once it changed", async () => {
    const location: S3ObjectLocation = { client, bucket, key: "records/b.jsonl" };
    await put(location.key, LINES);
    const first = await readObjectText(location);
    expect(await readObjectTextIfChanged(location, first.etag)).toBeUndefined();
    await put(location.key, `${LINES}{"type":"order","id":"ord-3","orderNumber":"3"}\n`);
    const second = await readObjectTextIfChanged(location, first.etag);
    expect(second?.etag).not.toBe(first.etag);
    expect(second?.text.split("\n").filter(Boolean)).toHaveLength(3);
  });

  test("a missing object is ObjectNotFound", async () => {
    await expect(readObjectText({ client, bucket, key: "records/missing.jsonl" })).rejects.toThrow(
      ObjectNotFound,
    );
  });

  test("a 403 (S3's answer for a missing key without s3:ListBucket) is StoreAccessDenied, never ObjectNotFound", async () => {
    const proxy = await S3AccessProxy.start(motoClientConfig().endpoint, (r) => r.method === "GET");
    const denied = new S3Client({ ...motoClientConfig(), endpoint: proxy.endpoint, maxAttempts: 1 });
    try {
      for (const key of ["records/missing.jsonl", "records/a.jsonl"]) {
        const error = await readObjectText({ client: denied, bucket, key }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreAccessDenied);
        expect(error).toMatchObject({ name: "StoreAccessDenied" });
        expect((error as Error).message).toMatch(/^S3 GetObject under prefix "records\/" was denied \(403\)/);
        expect((error as Error).message).toContain("needs s3:ListBucket");
        expect((error as Error).message).not.toContain(".jsonl");
      }
    } finally {
      denied.destroy();
      await proxy.close();
    }
  });

  test("any other failure is ReasoningFailed naming the S3 error and status", async () => {
    const denied = new S3Client({ ...motoClientConfig(), endpoint: "http://127.0.0.1:9", maxAttempts: 1 });
    const error = await readObjectText({ client: denied, bucket, key: "records/a.jsonl" }).catch(
      (e: unknown) => e,
    );
    denied.destroy();
    expect(error).toBeInstanceOf(ReasoningFailed);
    expect((error as Error).message).toMatch(
      /^S3 GetObject of s3:\/\/records-[^ ]+\/records\/a\.jsonl failed: /,
    );
  });
});
