import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CreateBucketCommand, PutBucketVersioningCommand, S3Client } from "@aws-sdk/client-s3";
import {
  CreateStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import type { JobClaim, ObjectStore } from "@voxtrail/core";
import { DirectoryStore, S3Store } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCli, spawnCli } from "../../../test/e2e/run-cli";
import { motoCliEnvironment, motoClientConfig } from "../../../test/setup/aws";
import { defaultSigningKeyPath, LocalSigner, writeDigest } from "../src/index";
import { type SyntheticJob, syntheticStore, writeSummaryOf, writeSyntheticJob } from "./synthetic-jobs";

/** Runs `voxtrail` as a user would, with extra environment variables. */
const voxtrail = runCli;

describe("voxtrail lineage on a local store", () => {
  let root: string;
  let jobs: SyntheticJob[];
  let remove: () => Promise<void>;

  beforeAll(async () => {
    let store: ObjectStore;
    ({ root, store, jobs, remove } = await syntheticStore("voxtrail-lineage-cli-"));
    // Ended and signed as a run ends them, with the tests' signing key (VOXTRAIL_SIGNING_KEY).
    for (const { jobId } of jobs) await writeSummaryOf(store, jobId);
    const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
    await writeDigest(store, signer, { jobs: jobs.map((job) => job.jobId) });
  });

  afterAll(() => remove());

  it("traces an artifact as a tree, and as JSON", async () => {
    const reply = jobs[0]!.artifacts.replyAudio;
    const text = await voxtrail(["lineage", "trace", reply.key, "--store", root]);
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toContain(reply.key);
    expect(text.stdout).toMatch(/← Synthesize attempt 1 succeeded/);
    expect(text.stdout).toMatch(/processor local-sonic-endpoint flite 1 in local/);
    expect(text.stdout).toMatch(/└─ incoming\/voicemail\/call-000001\.wav {2}\[source-audio\]/);
    expect(text.stdout).toContain("source audio: where the chain begins");

    const json = await voxtrail(["lineage", "trace", reply.uri, "--store", root, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      artifact: { key: reply.key },
      producedBy: { stage: "Synthesize" },
    });
  });

  it("verifies, then fails naming an altered artifact with exit code 1", async () => {
    const ok = await voxtrail(["lineage", "verify", "--store", root]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^OK: 2 job\(s\), 14 artifact\(s\) re-hashed/);

    const transcript = jobs[1]!.artifacts.transcript;
    const file = join(root, ...transcript.key.split("/"));
    const original = await readFile(file);
    await writeFile(file, Buffer.concat([original.subarray(0, -1), Buffer.from([original.at(-1)! ^ 1])]));
    try {
      const failed = await voxtrail(["lineage", "verify", "--store", root]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/^FAILED: .* 1 problem\(s\)/);
      expect(failed.stdout).toMatch(new RegExp(`hash-mismatch +${transcript.key}`));
      const json = await voxtrail(["lineage", "verify", "--store", root, "--json", "--job", jobs[1]!.jobId]);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout).issues).toEqual([
        expect.objectContaining({ problem: "hash-mismatch", key: transcript.key }),
      ]);
    } finally {
      await writeFile(file, original);
    }
  });

  it("lists impact and boundary counts, exports NDJSON, and erases", async () => {
    const [job] = jobs as [SyntheticJob];
    const impact = await voxtrail(["lineage", "impact", job.source.key, "--store", root, "--json"]);
    expect(JSON.parse(impact.stdout).artifacts).toHaveLength(6);

    const counts = await voxtrail(["lineage", "boundaries", "--store", root]);
    expect(counts.stdout.split("\n")[0]).toMatch(
      /^kind +boundary +provider +redacted +entered +refused +from$/,
    );
    expect(counts.stdout).toMatch(/transcript +local +pocketsphinx +- +2 +0 +policy-decision/);

    const exported = await voxtrail(["lineage", "export", "--format", "openlineage", "--store", root]);
    const events = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events).toHaveLength(20);

    const erased = await voxtrail(["lineage", "erase", job.source.key, "--store", root]);
    expect(erased.code).toBe(0);
    expect(erased.stdout).toMatch(
      /^erasure [0-9a-f-]{36} of incoming\/voicemail\/call-000001\.wav: 1 job\(s\), 7 object\(s\)/,
    );
    const after = await voxtrail(["lineage", "verify", "--store", root]);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`erased  ${job.jobId}`);
  });

  it("names a finished job no run signed, and signs it when an operator vouches for it", async () => {
    const store = new DirectoryStore({ root });
    const added = await writeSyntheticJob(store, 3, Date.UTC(2026, 0, 1), false);
    await writeSummaryOf(store, added.jobId);
    const unsigned = await voxtrail(["lineage", "verify", "--store", root]);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stdout).toMatch(new RegExp(`job-not-signed +lineage-summaries/${added.jobId}\\.json`));

    const refused = await voxtrail(["lineage", "sign", "--store", root, "--job", "vm-never-finished"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/has no lineage summary: it has not finished/);
    const vouched = await voxtrail(["lineage", "sign", "--store", root, "--job", added.jobId]);
    expect(vouched.stdout).toMatch(/^lineage signed: lineage-digests\/s000000000002\.json covers 1 job\(s\)/);
    const signed = await voxtrail(["lineage", "verify", "--store", root]);
    expect(signed.code).toBe(0);
    const head = signed.stdout.match(/head: sequence 2, sha256 ([0-9a-f]{64})/)?.[1];
    expect(head).toBeDefined();
    const kept = await voxtrail(["lineage", "verify", "--store", root, "--expect-head", `3:${head}`]);
    expect(kept.code).toBe(1);
    expect(kept.stdout).toMatch(/digest-head-missing +lineage-digests\/s000000000003\.json/);
  });

  it("refuses a missing artifact argument with the usage and exit code 2", async () => {
    const result = await voxtrail(["lineage", "trace", "--store", root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/lineage trace needs an artifact/);
  });

  it("repairs no chain that did not fork, and repairs only a local store", async () => {
    const none = await voxtrail(["lineage", "repair-chain", "--store", root]);
    expect(none).toMatchObject({
      code: 0,
      stdout: "nothing to repair: the digest chain has no broken link\n",
    });
    const bucket = await voxtrail(["lineage", "repair-chain", "--bucket", "some-bucket"]);
    expect(bucket.code).toBe(2);
    expect(bucket.stderr).toMatch(/a local store \(--store DIR\) only/);
  });
});

describe("voxtrail lineage --bucket (S3 through moto_server)", () => {
  it("traces and verifies lineage in a bucket with the standard AWS configuration", async () => {
    const bucket = `lineage-${randomUUID().slice(0, 8)}`;
    const client = new S3Client(motoClientConfig());
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    const store = new S3Store({ client, bucket });
    const job = await writeSyntheticJob(store, 7);
    const env = {
      AWS_ENDPOINT_URL_S3: inject("motoEndpoint"),
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "testing",
      AWS_SECRET_ACCESS_KEY: "testing",
    };
    const verified = await voxtrail(["lineage", "verify", "--bucket", bucket, "--json"], env);
    expect(verified.stderr).not.toMatch(/voxtrail:/);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, jobs: 1, artifactsChecked: 7 });
    const traced = await voxtrail(
      ["lineage", "trace", `s3://${bucket}/${job.artifacts.record.key}`, "--bucket", bucket, "--json"],
      env,
    );
    expect(JSON.parse(traced.stdout).producedBy).toMatchObject({ stage: "Reason", jobId: job.jobId });

    await store.put(job.artifacts.replyText.key, "Something else entirely.\n", { contentType: "text/plain" });
    const failed = await voxtrail(["lineage", "verify", "--bucket", bucket], env);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(new RegExp(`hash-mismatch +${job.artifacts.replyText.key}`));
  });
});

describe("voxtrail lineage erase --bucket, while the job still runs", () => {
  it("waits for the job's Step Functions execution to end, then erases what it wrote meanwhile too", async () => {
    const bucket = `erase-running-${randomUUID().slice(0, 8)}`;
    const s3 = new S3Client(motoClientConfig());
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: "Enabled" } }),
    );
    const store = new S3Store({ client: s3, bucket });
    const job = await writeSyntheticJob(store, 9);
    // The job's claim names an execution that moto keeps RUNNING until it is stopped.
    const sfn = new SFNClient(motoClientConfig());
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: `erase-running-${randomUUID().slice(0, 8)}`,
        roleArn: "arn:aws:iam::123456789012:role/voxtrail-test",
        definition: JSON.stringify({ StartAt: "Run", States: { Run: { Type: "Pass", End: true } } }),
      }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: "{}" }));
    const claim: JobClaim = {
      jobId: job.jobId,
      run: 1,
      executionId: executionArn as string,
      claimedAt: new Date().toISOString(),
      source: { bucket, key: job.source.key },
    };
    await store.put(keys.claim(job.jobId, 1), JSON.stringify(claim), { contentType: "application/json" });

    const erasing = spawnCli(
      ["lineage", "erase", job.source.key, "--bucket", bucket, "--json"],
      motoCliEnvironment(),
    );
    await expect
      .poll(() => erasing.output.stderr, { timeout: 20_000 })
      .toContain(`waiting for job ${job.jobId}`);
    // The running job writes while the erasure waits, then its execution ends.
    const late = `artifacts/${job.jobId}/written-late.json`;
    await store.put(late, "{}", { contentType: "application/json" });
    expect(await store.versions(job.source.key)).not.toEqual([]);
    await sfn.send(new StopExecutionCommand({ executionArn }));

    expect(await erasing.exited).toBe(0);
    expect(JSON.parse(erasing.output.stdout)).toMatchObject({ jobs: [job.jobId] });
    expect(await store.versions(late)).toEqual([]);
    expect(await store.versions(job.source.key)).toEqual([]);
  });
});
