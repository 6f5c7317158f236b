import { randomUUID } from "node:crypto";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll } from "vitest";
import { motoClientConfig } from "../../../../test/setup/aws";

/** A bucket of the calling test file's own in moto_server, and the S3 client that reaches it. */
export interface MotoBucket {
  client: S3Client;
  bucket: string;
  /** Puts `body` under `key`. */
  put(key: string, body: string): Promise<void>;
}

/**
 * A fresh bucket in moto_server for the calling test file: created before its tests, its client
 * destroyed after them. Call it at the top of the file.
 *
 * @example
 * const { client, bucket, put } = motoBucket();
 * it("...", async () => put("records/a.jsonl", "{}\n"));
 */
export function motoBucket(): MotoBucket {
  const client = new S3Client(motoClientConfig());
  const bucket = `records-${randomUUID()}`;
  beforeAll(async () => {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(() => client.destroy());
  return {
    client,
    bucket,
    put: async (key, body) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
  };
}
