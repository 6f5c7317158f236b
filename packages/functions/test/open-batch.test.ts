import { InvalidInput } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import { createBatchHandlers } from "../src/workflow-handlers";
import { context, testDependencies } from "./stage-dependencies";

const time = "2026-01-01T00:00:01.000Z";

/** A manifest's "Object Created" event; with `reason`, as S3 writes it (key form-encoded). */
function manifestEvent(bucket: string, key: string, reason?: string) {
  return {
    source: "aws.s3",
    "detail-type": "Object Created",
    time,
    detail: { bucket: { name: bucket }, object: { key, etag: "e" }, ...(reason ? { reason } : {}) },
  };
}

/** The error OpenBatch throws for `event`, or undefined. */
async function refusal(event: unknown): Promise<Error | undefined> {
  const { deps } = await testDependencies();
  return createBatchHandlers(deps)
    .openBatch(event, context)
    .then(
      () => undefined,
      (error: Error) => error,
    );
}

describe("openBatch", () => {
  it("answers the manifest's bucket, key (decoded from S3's form encoding) and time, and nothing else", async () => {
    const { deps } = await testDependencies();
    const opened = await createBatchHandlers(deps).openBatch(
      manifestEvent(deps.store.bucket, "incoming/batches/night+run+a%2Bb%25%C3%BC.csv", "PutObject"),
      context,
    );
    expect(opened).toEqual({ bucket: deps.store.bucket, key: "incoming/batches/night run a+b%ü.csv", time });
    // It reads and writes nothing: no activity record, no claim.
    expect(await deps.store.list("")).toEqual([]);
  });

  it("takes the key of an event without `reason` as it is", async () => {
    const { deps } = await testDependencies();
    const opened = await createBatchHandlers(deps).openBatch(
      manifestEvent(deps.store.bucket, "incoming/batches/a b+c%.csv"),
      context,
    );
    expect(opened).toMatchObject({ key: "incoming/batches/a b+c%.csv" });
  });

  it("refuses another bucket's event with InvalidInput naming the buckets", async () => {
    const error = await refusal(
      manifestEvent("someone-elses-bucket", "incoming/batches/list.csv", "PutObject"),
    );
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error?.message).toMatch(/^event names bucket someone-elses-bucket, but this stage reads /);
  });

  it.each([
    [
      "a key outside incoming/batches/",
      "incoming/voicemail/secret+list.csv",
      /not under incoming\/batches\//,
    ],
    ["a key that decodes outside it", "incoming%2Fvoicemail%2Fsecret.csv", /not under incoming\/batches\//],
    ["a key that is not form encoding", "incoming/batches/secret%zz.csv", /not URL-encoded/],
  ])("refuses %s with InvalidInput naming the rule, never the key", async (_, key, rule) => {
    const { deps } = await testDependencies();
    const error = await createBatchHandlers(deps)
      .openBatch(manifestEvent(deps.store.bucket, key, "PutObject"), context)
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error?.message).toMatch(rule);
    expect(error?.message).not.toContain("secret");
  });

  it("refuses an input that is not an Object Created event, naming the path", async () => {
    const error = await refusal({ source: "aws.s3", "detail-type": "Object Created", time, detail: {} });
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error?.message).toMatch(/^OpenBatch input is malformed at: detail\.bucket, detail\.object$/);
  });
});
