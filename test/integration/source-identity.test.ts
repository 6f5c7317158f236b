import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CreateBucketCommand, PutBucketVersioningCommand, S3Client } from "@aws-sdk/client-s3";
import { parseWav } from "@voxtrail/audio";
import { Transcript } from "@voxtrail/core";
import { LineageGraph, readLineage, verify } from "@voxtrail/lineage";
import { BUNDLED_VOICEMAILS_DIR, LocalRuntime, objectCreatedEvent } from "@voxtrail/local";
import { S3Store } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { runCli } from "../e2e/run-cli";
import { motoClientConfig } from "../setup/aws";
import { SIMULATED_TRANSCRIBER, SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";
import { temporaryDirectory } from "../support/temporary-directory";

/** Two callers' voicemails that land under one key, one after the other. */
const FIRST = join(BUNDLED_VOICEMAILS_DIR, "no-message.wav");
const SECOND = join(BUNDLED_VOICEMAILS_DIR, "billing.wav");
const KEY = keys.incomingVoicemail("x.wav");

const workDir = temporaryDirectory("voxtrail-source-identity-");

/** How long the audio of `path` is. */
async function durationMs(path: string): Promise<number> {
  return parseWav(await readFile(path)).durationMs;
}

/** How much audio the job's transcript covers. */
async function transcribedMs(store: S3Store, jobId: string): Promise<number> {
  const bytes = await store.getBytes(keys.artifact(jobId, "transcript.json"));
  return Transcript.parse(JSON.parse(bytes.toString("utf8"))).audioMs;
}

describe("a job reads exactly the object its event named", () => {
  it("in a versioned bucket, each upload to one key is its own job with its own audio, and verify agrees", async () => {
    const s3 = new S3Client(motoClientConfig());
    const bucket = `voxtrail-identity-${randomUUID().slice(0, 8)}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: "Enabled" } }),
    );
    const store = new S3Store({ client: s3, bucket });
    // Both uploads land before either job runs: the first event must not process the second audio.
    const first = await store.put(KEY, await readFile(FIRST), { contentType: "audio/wav" });
    const second = await store.put(KEY, await readFile(SECOND), { contentType: "audio/wav" });
    expect(first.versionId).toBeDefined();
    // Which audio each job's stages worked on, not what was heard in it: the transcriber is
    // simulated, and its transcript spans the audio it was given.
    const runtime = await LocalRuntime.start({ store, providers: SIMULATED_TRANSCRIBER });
    try {
      const a = await runtime.runEvent(objectCreatedEvent(bucket, first, new Date()));
      const b = await runtime.runEvent(objectCreatedEvent(bucket, second, new Date()));
      expect([a.status, b.status]).toEqual(["SUCCEEDED", "SUCCEEDED"]);
      expect(a.jobId).not.toBe(b.jobId);
      expect(a.report?.source).toMatchObject({ sha256: first.sha256, versionId: first.versionId });
      expect(b.report?.source).toMatchObject({ sha256: second.sha256, versionId: second.versionId });
      // Each job transcribed its own caller's audio (11.9 s of no message, 19 s of billing).
      expect(await transcribedMs(store, a.jobId)).toBe(await durationMs(FIRST));
      expect(await transcribedMs(store, b.jobId)).toBe(await durationMs(SECOND));
    } finally {
      await runtime.close();
    }
    const verified = await verify(store, LineageGraph.of(await readLineage(store, {})));
    expect(verified.issues).toEqual([]);
  }, 300_000);

  it("in a bucket without versions, a job whose object was replaced fails by name, and verify names a replaced source", async () => {
    const s3 = new S3Client(motoClientConfig());
    const bucket = `voxtrail-unversioned-${randomUUID().slice(0, 8)}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const store = new S3Store({ client: s3, bucket });
    const first = await store.put(KEY, await readFile(FIRST), { contentType: "audio/wav" });
    const second = await store.put(KEY, await readFile(SECOND), { contentType: "audio/wav" });
    expect(first.versionId).toBeUndefined();
    // Which object each job read, not what was heard in it: the transcriber is simulated here.
    const runtime = await LocalRuntime.start({ store, providers: SIMULATED_TRANSCRIBER });
    try {
      const a = await runtime.runEvent(objectCreatedEvent(bucket, first, new Date()));
      const b = await runtime.runEvent(objectCreatedEvent(bucket, second, new Date()));
      expect(a).toMatchObject({ status: "FAILED", error: { error: "IngestFailed" } });
      expect(a.error?.cause).toMatch(/^ObjectChanged: /);
      expect(b.status).toBe("SUCCEEDED");
      // The first audio uploaded again: its job (named by the etag here) runs again, and the key
      // no longer holds what the second job read.
      const again = await store.put(KEY, await readFile(FIRST), { contentType: "audio/wav" });
      const rerun = await runtime.runEvent(objectCreatedEvent(bucket, again, new Date()));
      expect(rerun).toMatchObject({ status: "SUCCEEDED", jobId: a.jobId });
      const verified = await verify(store, LineageGraph.of(await readLineage(store, {})));
      expect(verified.issues).toEqual([
        expect.objectContaining({ problem: "source-replaced", key: KEY, jobId: b.jobId }),
      ]);
    } finally {
      await runtime.close();
    }
  }, 300_000);

  it("two runs of different files under one name are two jobs, each with its own audio, and verify agrees (voxtrail run d1/x.wav, then d2/x.wav)", async () => {
    const store = join(workDir(), "two-runs");
    const jobs: string[] = [];
    for (const [dir, source] of [
      ["d1", FIRST],
      ["d2", SECOND],
    ] as const) {
      await mkdir(join(workDir(), dir), { recursive: true });
      await writeFile(join(workDir(), dir, "x.wav"), await readFile(source));
      const file = join(workDir(), dir, "x.wav");
      const run = await runCli(["run", file, "--store", store, "--json"], SIMULATED_TRANSCRIBER_ENV);
      expect(run.code).toBe(0);
      jobs.push(JSON.parse(run.stdout)[0].jobId);
    }
    expect(new Set(jobs).size).toBe(2);
    const verified = await runCli(["lineage", "verify", "--store", store, "--json"]);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, jobs: 2, issues: [] });
    expect(verified.code).toBe(0);
  }, 300_000);
});
