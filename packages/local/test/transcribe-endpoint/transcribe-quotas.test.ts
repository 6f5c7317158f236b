import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  StartTranscriptionJobCommand,
  type StartTranscriptionJobCommandInput,
  TranscribeClient,
} from "@aws-sdk/client-transcribe";
import { DirectoryStore } from "@voxtrail/storage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { temporaryDirectory } from "../../../../test/support/temporary-directory";
import {
  AWS_TRANSCRIBE_QUOTAS,
  startTranscribeEndpoint,
  type TranscribeEndpoint,
  type TranscribeEndpointOptions,
  type TranscribeJobStateChangeEvent,
} from "../../src/transcribe-endpoint/server";
import { GatedTranscriber } from "./gated-transcriber";
import { describedJob, LOCAL_TRANSCRIBE_CLIENT } from "./local-transcribe";

// Transcribe's quotas as the local endpoint enforces them, seen through the real Transcribe client
// (no retries, so each refusal is the answer itself), with tiny limits and a recogniser the test
// holds until it opens the gate.

const VOICEMAIL = new URL("../../../../fixtures/voicemail/telephony/no-message.wav", import.meta.url);
const ROLE = "arn:aws:iam::000000000000:role/transcribe-queue";

const root = temporaryDirectory("voxtrail-transcribe-quotas-");
let stores = 0;
const opened: Array<{ endpoint: TranscribeEndpoint; client: TranscribeClient }> = [];

afterEach(async () => {
  for (const { endpoint, client } of opened.splice(0)) {
    client.destroy();
    await endpoint.close();
  }
});

/** An endpoint over a fresh store holding the voicemail at `media.wav`, with a client that never retries. */
async function open(options: Omit<TranscribeEndpointOptions, "store">) {
  const store = new DirectoryStore({ root: join(root(), `store-${++stores}`) });
  await store.put("media.wav", await readFile(VOICEMAIL), { contentType: "audio/wav" });
  const endpoint = await startTranscribeEndpoint({ store, ...options });
  const client = new TranscribeClient({ endpoint: endpoint.url, ...LOCAL_TRANSCRIBE_CLIENT, maxAttempts: 1 });
  opened.push({ endpoint, client });
  const start = (name: string, extra: Partial<StartTranscriptionJobCommandInput> = {}) =>
    client.send(
      new StartTranscriptionJobCommand({
        TranscriptionJobName: name,
        Media: { MediaFileUri: `s3://${store.bucket}/media.wav` },
        LanguageCode: "en-US",
        OutputBucketName: store.bucket,
        OutputKey: `out/${name}.json`,
        ...extra,
      }),
    );
  const queued = (name: string) =>
    start(name, { JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: ROLE } });
  const status = async (name: string) => (await describedJob(client, name)).TranscriptionJobStatus;
  return { store, endpoint, client, start, queued, status };
}

/** Resolves once `check` holds, asking every 10 ms (real time). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the concurrent-jobs quota", () => {
  it("refuses a job beyond it with 400 LimitExceededException, and takes one again once a job ends", async () => {
    const gate = new GatedTranscriber();
    const local = await open({ transcriber: gate, quotas: { concurrentJobs: 2 } });
    await local.start("a");
    await local.start("b");
    await expect(local.start("c")).rejects.toMatchObject({
      name: "LimitExceededException",
      $metadata: { httpStatusCode: 400 },
    });
    await until(() => gate.waiting === 2);
    gate.open();
    await until(async () => (await local.status("a")) === "COMPLETED");
    await until(async () => (await local.status("b")) === "COMPLETED");
    await expect(local.start("c")).resolves.toMatchObject({
      TranscriptionJob: { TranscriptionJobStatus: "IN_PROGRESS" },
    });
    await until(() => gate.waiting === 1);
    gate.open();
    await local.endpoint.settled();
    expect(local.endpoint.quotaUse()).toContainEqual({ name: "concurrentJobs", peak: 2, limit: 2 });
  });
});

describe("the job queue", () => {
  it("queues a deferrable job beyond the quota as QUEUED, reports its settings, and runs the queue FIFO on 90% of the slots", async () => {
    const gate = new GatedTranscriber();
    const local = await open({ transcriber: gate, quotas: { concurrentJobs: 10 } });
    for (let i = 0; i < 10; i++) await local.start(`direct-${i}`);
    for (let i = 0; i < 10; i++) {
      const { TranscriptionJob: job } = await local.queued(`queued-${i}`);
      expect(job?.TranscriptionJobStatus).toBe("QUEUED");
      expect(job?.StartTime).toBeUndefined();
    }
    expect(await describedJob(local.client, "queued-0")).toMatchObject({
      TranscriptionJobStatus: "QUEUED",
      JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: ROLE },
    });

    await until(() => gate.waiting === 10);
    gate.open();
    // Ten slots free, but queued jobs may hold nine (0.9 x 10): the first nine leave the queue.
    await until(() => gate.waiting === 9);
    for (let i = 0; i < 9; i++) expect(await local.status(`queued-${i}`)).toBe("IN_PROGRESS");
    expect(await local.status("queued-9")).toBe("QUEUED");
    // The tenth slot stays for a job started directly.
    await expect(local.start("direct-10")).resolves.toMatchObject({
      TranscriptionJob: { TranscriptionJobStatus: "IN_PROGRESS" },
    });
    await expect(local.start("direct-11")).rejects.toMatchObject({ name: "LimitExceededException" });

    await until(() => gate.waiting === 10);
    gate.open();
    await until(async () => (await local.status("queued-9")) === "IN_PROGRESS");
    await until(() => gate.waiting === 1);
    gate.open();
    await local.endpoint.settled();
    expect(await local.status("queued-9")).toBe("COMPLETED");
    expect(local.endpoint.quotaUse()).toEqual(
      expect.arrayContaining([
        { name: "concurrentJobs", peak: 10, limit: 10 },
        { name: "queuedJobs", peak: 10, limit: 10_000 },
        { name: "queueBandwidth", peak: 9, limit: 9 },
      ]),
    );
  });

  it("queues behind jobs already queued even when a slot is free, so the queue stays first in, first out", async () => {
    const gate = new GatedTranscriber();
    const local = await open({ transcriber: gate, quotas: { concurrentJobs: 2 } });
    await local.start("direct-0");
    await local.start("direct-1");
    await local.queued("first");
    await local.queued("second");
    await until(() => gate.waiting === 2);
    gate.open();
    // Queued jobs may hold one slot of two (0.9 x 2, at least one): "first" takes it, "second" waits.
    await until(async () => (await local.status("first")) === "IN_PROGRESS");
    expect(await local.status("second")).toBe("QUEUED");
    // A slot is free, but "second" is ahead: "third" queues behind it.
    await expect(local.queued("third")).resolves.toMatchObject({
      TranscriptionJob: { TranscriptionJobStatus: "QUEUED" },
    });
    await until(() => gate.waiting === 1);
    gate.open();
    await until(async () => (await local.status("second")) === "IN_PROGRESS");
    expect(await local.status("third")).toBe("QUEUED");
    for (let round = 0; round < 2; round++) {
      await until(() => gate.waiting === 1);
      gate.open();
    }
    await local.endpoint.settled();
    expect(await local.status("third")).toBe("COMPLETED");
  });

  it("refuses a deferrable job beyond the queue's size with LimitExceededConcurrentJobException", async () => {
    const gate = new GatedTranscriber();
    const local = await open({
      transcriber: gate,
      quotas: { concurrentJobs: 1, queuedJobs: 2 },
    });
    await local.start("running");
    await local.queued("waiting-1");
    await local.queued("waiting-2");
    await expect(local.queued("waiting-3")).rejects.toMatchObject({
      name: "LimitExceededConcurrentJobException",
      $metadata: { httpStatusCode: 400 },
    });
    await expect(describedJob(local.client, "waiting-3")).rejects.toMatchObject({
      name: "NotFoundException",
    });
    for (let round = 0; round < 3; round++) {
      await until(() => gate.waiting === 1);
      gate.open();
    }
    await local.endpoint.settled();
    expect(local.endpoint.quotaUse()).toContainEqual({ name: "queuedJobs", peak: 2, limit: 2 });
  });

  it("refuses AllowDeferredExecution without DataAccessRoleArn with BadRequestException, as the API reference requires", async () => {
    const local = await open({ transcriber: new GatedTranscriber() });
    await expect(
      local.start("no-role", { JobExecutionSettings: { AllowDeferredExecution: true } }),
    ).rejects.toMatchObject({ name: "BadRequestException", $metadata: { httpStatusCode: 400 } });
    await expect(
      local.start("bad-role", {
        JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: "not-a-role-arn-at-all" },
      }),
    ).rejects.toMatchObject({ name: "BadRequestException" });
  });
});

describe("the requests-per-second quotas", () => {
  it("answer StartTranscriptionJob and GetTranscriptionJob beyond their rate with 400 LimitExceededException", async () => {
    // One clock second for every request: the quotas count whole seconds, and a real second's
    // boundary between two requests would start a new one.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-12-06T10:00:00.000Z") });
    try {
      const local = await open({
        transcriber: new GatedTranscriber(),
        quotas: { startTranscriptionJobPerSecond: 2, getTranscriptionJobPerSecond: 3 },
      });
      await local.start("one");
      await local.start("two");
      await expect(local.start("three")).rejects.toMatchObject({
        name: "LimitExceededException",
        message: "Rate exceeded",
        $metadata: { httpStatusCode: 400 },
      });
      for (let i = 0; i < 3; i++) await local.status("one");
      await expect(local.status("one")).rejects.toMatchObject({
        name: "LimitExceededException",
        message: "Rate exceeded",
      });
      expect(local.endpoint.jobNames()).toEqual(["one", "two"]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("are not enforced by default, while the job quotas are AWS's: 250 concurrent jobs, 90% of them for the queue, 10,000 queued", async () => {
    const local = await open({ transcriber: new GatedTranscriber() });
    expect(local.endpoint.quotaUse()).toEqual([
      { name: "concurrentJobs", peak: 0, limit: 250 },
      { name: "queuedJobs", peak: 0, limit: 10_000 },
      { name: "queueBandwidth", peak: 0, limit: 225 },
      {
        name: "startTranscriptionJobPerSecond",
        peak: 0,
        limit: Number.POSITIVE_INFINITY,
        demand: 0,
        refused: 0,
      },
      {
        name: "getTranscriptionJobPerSecond",
        peak: 0,
        limit: Number.POSITIVE_INFINITY,
        demand: 0,
        refused: 0,
      },
    ]);
    for (let i = 0; i < 40; i++) await local.status("none").catch(() => undefined);
    await expect(local.status("none")).rejects.toMatchObject({ name: "NotFoundException" });
  });

  it("are AWS's with AWS_TRANSCRIBE_QUOTAS: 25 starts and 30 gets a second", async () => {
    const local = await open({ transcriber: new GatedTranscriber(), quotas: AWS_TRANSCRIBE_QUOTAS });
    expect(local.endpoint.quotaUse().slice(-2)).toEqual([
      { name: "startTranscriptionJobPerSecond", peak: 0, limit: 25, demand: 0, refused: 0 },
      { name: "getTranscriptionJobPerSecond", peak: 0, limit: 30, demand: 0, refused: 0 },
    ]);
  });

  it("refuses settings that are no quota", async () => {
    const store = new DirectoryStore({ root: join(root(), "unused") });
    await expect(startTranscribeEndpoint({ store, quotas: { concurrentJobs: 0 } })).rejects.toThrow(
      "quotas.concurrentJobs must be a positive integer",
    );
    await expect(startTranscribeEndpoint({ store, quotas: { queueBandwidthRatio: 1.5 } })).rejects.toThrow(
      "quotas.queueBandwidthRatio must be in (0, 1]",
    );
    await expect(
      startTranscribeEndpoint({ store, quotas: { getTranscriptionJobPerSecond: 0 } }),
    ).rejects.toThrow("quotas.getTranscriptionJobPerSecond must be at least 1 (Infinity: not enforced)");
    await expect(
      startTranscribeEndpoint({ store, jobRunTime: { fixedSeconds: -1, secondsPerAudioSecond: 0 } }),
    ).rejects.toThrow("jobRunTime.fixedSeconds must be a non-negative number");
  });
});

describe("state-change events", () => {
  it("sends EventBridge's Transcribe Job State Change as a job ends COMPLETED or FAILED", async () => {
    const events: TranscribeJobStateChangeEvent[] = [];
    const gate = new GatedTranscriber();
    const local = await open({
      transcriber: gate,
      accountId: "123456789012",
      region: "eu-west-1",
      onJobStateChange: (event) => events.push(event),
    });
    await local.store.put("note.wav", "not audio", { contentType: "audio/wav" });
    await local.start("fine");
    await local.start("broken", { Media: { MediaFileUri: `s3://${local.store.bucket}/note.wav` } });
    await until(() => events.length === 1);
    expect(events[0]).toEqual({
      version: "0",
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      "detail-type": "Transcribe Job State Change",
      source: "aws.transcribe",
      account: "123456789012",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: "eu-west-1",
      resources: [],
      detail: {
        TranscriptionJobName: "broken",
        TranscriptionJobStatus: "FAILED",
        FailureReason: "Unsupported media format",
      },
    });
    expect(await local.status("fine")).toBe("IN_PROGRESS");
    await until(() => gate.waiting === 1);
    gate.open();
    await local.endpoint.settled();
    expect(events[1]?.detail).toEqual({ TranscriptionJobName: "fine", TranscriptionJobStatus: "COMPLETED" });
    expect(events[1]?.id).not.toBe(events[0]?.id);
  });
});
