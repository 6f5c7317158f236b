import { randomUUID } from "node:crypto";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { type JobClaim, type JobReport, StoreAccessDenied } from "@voxtrail/core";
import { S3Store } from "@voxtrail/storage";
import { keys, promptKeys } from "@voxtrail/workflow";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { type ProxiedRequest, S3AccessProxy } from "../../storage/test/s3-access-proxy";
import { claimJob, voicemailRunEnding } from "../src/claims/job-claim";
import { preparePromptsStage } from "../src/handlers/prepare-prompts";
import { readPromptResult } from "../src/handlers/synthesize-prompt";
import { writePromptsReportStage } from "../src/handlers/write-prompts-report";
import { unchangedObject } from "../src/prompts/unchanged-object";
import { invoke, testDependencies } from "./stage-dependencies";

// Without s3:ListBucket, S3 answers GET and HEAD of a missing key with 403. None of the places that
// treat a missing object as "absent" may take a 403 for one: a proxy in front of moto answers the
// chosen requests as S3 does, and each must fail with StoreAccessDenied instead of going on.

const client = new S3Client(motoClientConfig());
let proxy: S3AccessProxy;
let proxied: S3Client;
let bucket: string;
let direct: S3Store;
let denied: S3Store;
const now = new Date("2026-11-30T08:00:00.000Z");

beforeAll(async () => {
  bucket = `voxtrail-denied-${randomUUID()}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  proxy = await S3AccessProxy.start(motoClientConfig().endpoint);
  proxied = new S3Client({ ...motoClientConfig(), endpoint: proxy.endpoint, maxAttempts: 1 });
  direct = new S3Store({ client, bucket });
  denied = new S3Store({ client: proxied, bucket });
});
afterAll(async () => {
  proxied.destroy();
  client.destroy();
  await proxy.close();
});
afterEach(() => {
  proxy.deny(() => false);
});

const under =
  (prefix: string, ...methods: string[]) =>
  (request: ProxiedRequest) =>
    request.key.startsWith(prefix) && methods.includes(request.method);

describe("a 403 is never an absent object", () => {
  it("claimJob: a report it may not read is not 'no report', so no second run is claimed", async () => {
    const jobId = "vm-00000000000000000403";
    const source = { bucket, key: "incoming/voicemail/a.wav", etag: '"abc"' };
    const claim: JobClaim = { jobId, run: 1, executionId: "exec-a", claimedAt: now.toISOString(), source };
    await direct.put(keys.claim(jobId, 1), JSON.stringify(claim), { contentType: "application/json" });
    const report: JobReport = {
      schemaVersion: 1,
      jobId,
      outcome: "succeeded",
      source,
      eventTime: now.toISOString(),
      execution: { id: "exec-a", startTime: now.toISOString() },
      artifacts: [],
      stages: [],
      timings: [],
      writtenAt: now.toISOString(),
    };
    await direct.put(keys.report(jobId), JSON.stringify(report), { contentType: "application/json" });
    proxy.deny(under("reports/", "GET", "HEAD"));

    const decision = claimJob(denied, { isRunning: async () => false }, voicemailRunEnding, {
      jobId,
      executionId: "exec-b",
      source,
      now,
    });

    await expect(decision).rejects.toThrow(StoreAccessDenied);
    await expect(decision).rejects.toThrow(/GetObject under prefix "reports\/".*s3:ListBucket/);
    expect(await direct.list(keys.claimPrefix(jobId))).toEqual([keys.claim(jobId, 1)]);
  });

  it("unchangedObject: a HEAD it may not make is not 'nothing there'", async () => {
    proxy.deny(under("prompts/", "HEAD"));
    await expect(
      unchangedObject(denied, "report", "prompts/pr-1/report.json", Buffer.from("{}"), "application/json"),
    ).rejects.toThrow(StoreAccessDenied);
  });

  it("preparePrompts, readPromptResult and writePromptsReport fail instead of rewriting or reporting not-run", async () => {
    const { deps } = await testDependencies({ store: denied });
    const key = promptKeys.incomingManifest(`denied-${randomUUID()}.csv`);
    const stored = await direct.put(key, "id,text\np1,Press one.\np2,Press two.\n", {
      contentType: "text/csv",
    });
    const input = {
      event: {
        source: "aws.s3" as const,
        "detail-type": "Object Created" as const,
        time: now.toISOString(),
        detail: { bucket: { name: bucket }, object: { key, etag: stored.etag ?? "" } },
      },
      execution: {
        id: "arn:aws:states:us-east-1:000000000000:execution:prompts:1",
        startTime: now.toISOString(),
      },
    };

    // rows.jsonl and bad-rows.json are checked with HEAD before being written: a 403 stops it.
    proxy.deny(under("prompts/", "HEAD"));
    await expect(invoke(preparePromptsStage, deps, input)).rejects.toThrow(StoreAccessDenied);

    proxy.deny(() => false);
    const prepared = await invoke(preparePromptsStage, deps, input);
    proxy.deny(under(promptKeys.resultsPrefix(prepared.jobId), "GET", "HEAD"));
    await expect(readPromptResult(deps, prepared.jobId, "p1")).rejects.toThrow(StoreAccessDenied);
    await expect(invoke(writePromptsReportStage, deps, prepared)).rejects.toThrow(StoreAccessDenied);
    expect(await direct.head(promptKeys.report(prepared.jobId))).toBeUndefined();

    // Allowed to read, the same missing results are what they are: not run.
    proxy.deny(() => false);
    expect(await readPromptResult(deps, prepared.jobId, "p1")).toBeUndefined();
    const written = await invoke(writePromptsReportStage, deps, prepared);
    expect(written).toMatchObject({ jobId: prepared.jobId });
  });
});
