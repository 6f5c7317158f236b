import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TranscribeClient, type TranscribeClientConfig } from "@aws-sdk/client-transcribe";
import { normalizeForTranscription } from "@voxtrail/audio";
import {
  InvalidInput,
  TranscriptionFailed,
  type TranscriptionJobRequest,
  TranscriptionRefused,
  TranscriptionThrottled,
  VoxtrailError,
} from "@voxtrail/core";
import { AmazonTranscribe, cloudTranscriptionService } from "@voxtrail/providers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { describedJob, endedJob, LOCAL_TRANSCRIBE_CLIENT, localTranscribe } from "./local-transcribe";

const VOICEMAIL = new URL("../../../../fixtures/voicemail/telephony/no-message.wav", import.meta.url);
const { region: REGION } = LOCAL_TRANSCRIBE_CLIENT;

const local = localTranscribe("voxtrail-amazon-transcribe-");
let service: AmazonTranscribe;

beforeAll(async () => {
  service = await AmazonTranscribe.create({ client: local.client, jobNamePrefix: "voxtrail-test-" });
});

/** The request for `name` on `mediaKey` of the store, its output at `transcribe/<name>.json`. */
function request(name: string, mediaKey: string, overrides: Partial<TranscriptionJobRequest> = {}) {
  return {
    jobName: name,
    mediaUri: `s3://${local.store.bucket}/${mediaKey}`,
    outputBucket: local.store.bucket,
    outputKey: `transcribe/${name}.json`,
    language: "en-US",
    ...overrides,
  };
}

describe("AmazonTranscribe against the local Transcribe endpoint, through the real SDK client", () => {
  it("starts a job on a normalized 16 kHz WAV, and reads the words out of the output document the job writes", async () => {
    const { wav, durationMs } = normalizeForTranscription(await readFile(VOICEMAIL));
    await local.store.put("jobs/vm-1/normalized.wav", wav, { contentType: "audio/wav" });
    const name = service.jobName("vm-1", 1);
    expect(name).toBe("voxtrail-test-vm-1-run-1");

    await expect(service.start(request(name, "jobs/vm-1/normalized.wav"))).resolves.toBe("started");

    const finished = await endedJob(local.client, name);
    expect(finished).toMatchObject({ TranscriptionJobStatus: "COMPLETED", LanguageCode: "en-US" });
    expect(finished.Transcript?.TranscriptFileUri).toBe(local.store.uri(`transcribe/${name}.json`));
    const document = JSON.parse((await local.store.getBytes(`transcribe/${name}.json`)).toString("utf8"));
    const transcript = service.transcriptOf(document, { language: "en-US", audioMs: durationMs });

    expect(transcript.processor).toEqual({
      provider: "amazon-transcribe",
      model: "transcribe-batch",
      version: "2017-10-26",
      boundary: { kind: "aws-account", service: "transcribe", region: REGION },
    });
    expect(transcript).toMatchObject({ language: "en-US", audioMs: durationMs });
    expect(transcript.words.length).toBeGreaterThan(0);
    for (const word of transcript.words) {
      expect(word.word).not.toBe("");
      expect(word.startMs).toBeGreaterThanOrEqual(0);
      expect(word.endMs).toBeGreaterThanOrEqual(word.startMs);
      expect(word.endMs).toBeLessThanOrEqual(durationMs);
      expect(word.confidence).toBeGreaterThanOrEqual(0);
      expect(word.confidence).toBeLessThanOrEqual(1);
    }
  }, 120_000);

  it("answers already-started to a second start of the same name, and starts no second job", async () => {
    // Not audio: the job fails at once, which is all this test needs of it.
    await local.store.put("jobs/vm-2/first.wav", "not audio", { contentType: "audio/wav" });
    const name = service.jobName("vm-2", 1);
    await expect(service.start(request(name, "jobs/vm-2/first.wav"))).resolves.toBe("started");
    const first = await describedJob(local.client, name);

    await expect(service.start(request(name, "jobs/vm-2/second.wav"))).resolves.toBe("already-started");

    const after = await describedJob(local.client, name);
    expect(after.Media?.MediaFileUri).toBe(`s3://${local.store.bucket}/jobs/vm-2/first.wav`);
    expect(after.CreationTime).toEqual(first.CreationTime);
    await local.endpoint.settled();
  });

  it("is TranscriptionRefused, with the service's reason, for media in another bucket or a language it does not take", async () => {
    const elsewhere = service.start(
      request(service.jobName("vm-3", 1), "x.wav", { mediaUri: "s3://someone-elses-bucket/call.wav" }),
    );
    await expect(elsewhere).rejects.toBeInstanceOf(TranscriptionRefused);
    await expect(elsewhere).rejects.toThrow(
      /BadRequestException \(status 400\): Media\.MediaFileUri must be/,
    );

    await local.store.put("jobs/vm-4/normalized.wav", "not audio", { contentType: "audio/wav" });
    await expect(
      service.start(request(service.jobName("vm-4", 1), "jobs/vm-4/normalized.wav", { language: "de-DE" })),
    ).rejects.toBeInstanceOf(TranscriptionRefused);
    await expect(describedJob(local.client, service.jobName("vm-4", 1))).rejects.toMatchObject({
      name: "NotFoundException",
    });
  });

  it("rejects with the abort itself when the signal has aborted, and starts nothing", async () => {
    await local.store.put("jobs/vm-5/normalized.wav", "not audio", { contentType: "audio/wav" });
    const name = service.jobName("vm-5", 1);
    const aborted = service.start(
      request(name, "jobs/vm-5/normalized.wav", {
        signal: AbortSignal.abort(new Error("attempt timed out")),
      }),
    );
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    await expect(aborted).rejects.not.toBeInstanceOf(VoxtrailError);
    await expect(describedJob(local.client, name)).rejects.toMatchObject({ name: "NotFoundException" });
  });
});

/** A stand-in Transcribe that answers every request with the same JSON 1.1 error, counting requests. */
interface FakeTranscribe {
  url: string;
  requests: number;
  close(): Promise<void>;
}

let fake: FakeTranscribe | undefined;
const fakeClients: TranscribeClient[] = [];

afterEach(async () => {
  for (const fakeClient of fakeClients.splice(0)) fakeClient.destroy();
  await fake?.close();
  fake = undefined;
});

/** Answers every request `status` with `body` (or never, when `status` is `undefined`). */
async function startFake(status: number | undefined, body: unknown = {}): Promise<FakeTranscribe> {
  let server: Server;
  const state: FakeTranscribe = {
    url: "",
    requests: 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  server = createServer((req, res) => {
    state.requests += 1;
    req.resume();
    if (status === undefined) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/x-amz-json-1.1",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake = state;
  return state;
}

/** An AmazonTranscribe whose client reaches `url`, with the SDK's standard retries, 2 attempts at most. */
function serviceAt(url: string, config: TranscribeClientConfig = {}): Promise<AmazonTranscribe> {
  const fakeClient = new TranscribeClient({
    endpoint: url,
    ...LOCAL_TRANSCRIBE_CLIENT,
    maxAttempts: 2,
    ...config,
  });
  fakeClients.push(fakeClient);
  return AmazonTranscribe.create({ client: fakeClient });
}

const JOB = {
  jobName: "voxtrail-vm-9-run-1",
  mediaUri: "s3://bucket/jobs/vm-9/normalized.wav",
  outputBucket: "bucket",
  outputKey: "jobs/vm-9/transcribe-output.json",
  language: "en-US",
};

describe("AmazonTranscribe's errors, from a stand-in answering every request the same", () => {
  it.each([
    [400, "LimitExceededException", "You have exceeded the maximum number of concurrent jobs."],
    [500, "InternalFailureException", "Internal failure"],
  ])("is TranscriptionThrottled for a %i %s, after the SDK's own retry", async (status, type, message) => {
    const server = await startFake(status, { __type: type, Message: message });
    const start = (await serviceAt(server.url)).start(JOB);
    await expect(start).rejects.toBeInstanceOf(TranscriptionThrottled);
    await expect(start).rejects.toMatchObject({ retryable: true });
    await expect(start).rejects.toThrow(`Amazon Transcribe ${type} (status ${status}) after 2 attempts`);
    expect(server.requests).toBe(2);
  });

  it("is TranscriptionFailed for any other error, naming its name and status and none of its message", async () => {
    const server = await startFake(400, {
      __type: "MysteryException",
      Message: "the caller said: my account number is 8842",
    });
    const start = (await serviceAt(server.url)).start(JOB);
    await expect(start).rejects.toBeInstanceOf(TranscriptionFailed);
    const error = (await start.catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe("Amazon Transcribe MysteryException (status 400)");
    expect(error.message).not.toContain("8842");
    expect(error.message).not.toContain("caller said");
  });

  it("cuts a refusal's message to 300 characters", async () => {
    const server = await startFake(400, { __type: "BadRequestException", Message: "x".repeat(1000) });
    const refusing = await serviceAt(server.url);
    const error = (await refusing.start(JOB).catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(TranscriptionRefused);
    expect(error.message).toBe(`Amazon Transcribe BadRequestException (status 400): ${"x".repeat(300)}…`);
    expect(server.requests).toBe(1);
  });

  it("rejects with the abort itself when the signal aborts mid-request", async () => {
    const server = await startFake(undefined);
    const controller = new AbortController();
    const start = (await serviceAt(server.url)).start({ ...JOB, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("attempt timed out")), 50);
    await expect(start).rejects.toMatchObject({ name: "AbortError" });
    await expect(start).rejects.not.toBeInstanceOf(VoxtrailError);
    expect(server.requests).toBe(1);
  });
});

describe("AmazonTranscribe's job names", () => {
  it("refuses a prefix with characters Transcribe does not allow in a job name", async () => {
    await expect(
      AmazonTranscribe.create({ client: local.client, jobNamePrefix: "voxtrail/prod-" }),
    ).rejects.toBeInstanceOf(InvalidInput);
    await expect(
      AmazonTranscribe.create({ client: local.client, jobNamePrefix: "voxtrail prod-" }),
    ).rejects.toBeInstanceOf(InvalidInput);
  });

  it("is voxtrail-<jobId>-run-<run> by default, up to 200 characters and no longer", async () => {
    const named = await AmazonTranscribe.create({ client: local.client });
    expect(named.jobName("vm-0a1b2c3d4e5f60718293", 2)).toBe("voxtrail-vm-0a1b2c3d4e5f60718293-run-2");
    // "voxtrail-" (9) + id + "-run-1" (6): an id of 185 makes 200.
    expect(named.jobName("a".repeat(185), 1)).toHaveLength(200);
    expect(() => named.jobName("a".repeat(186), 1)).toThrow(InvalidInput);
    expect(() => named.jobName("vm/1", 1)).toThrow(InvalidInput);
    expect(() => named.jobName("vm-1", -1)).toThrow(InvalidInput);
  });
});

describe("cloudTranscriptionService", () => {
  it("builds AmazonTranscribe, with the selection's job prefix, only when the selection chose amazon-transcribe", async () => {
    const selection = { transcriber: "amazon-transcribe", reasoner: "local", synthesizer: "local" } as const;
    const built = await cloudTranscriptionService(
      { ...selection, transcribeJobPrefix: "voxtrail-dev-" },
      { transcribe: local.client },
    );
    expect(built).toBeInstanceOf(AmazonTranscribe);
    expect(built?.jobName("vm-1", 1)).toBe("voxtrail-dev-vm-1-run-1");
    expect(built?.processor.boundary).toEqual({ kind: "aws-account", service: "transcribe", region: REGION });
    expect(
      (await cloudTranscriptionService(selection, { transcribe: local.client }))?.jobName("vm-1", 1),
    ).toBe("voxtrail-vm-1-run-1");
    for (const transcriber of ["local", "cartesia-ink"] as const) {
      await expect(
        cloudTranscriptionService({ ...selection, transcriber }, { transcribe: local.client }),
      ).resolves.toBeUndefined();
    }
  });
});
