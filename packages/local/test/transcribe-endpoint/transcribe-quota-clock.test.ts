import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { normalizeForTranscription } from "@voxtrail/audio";
import { DirectoryStore } from "@voxtrail/storage";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { temporaryDirectory } from "../../../../test/support/temporary-directory";
import { OperationRate } from "../../src/transcribe-endpoint/operation-rate";
import { transcribeQuotas } from "../../src/transcribe-endpoint/transcribe-quotas";
import { TranscriptionJobs } from "../../src/transcribe-endpoint/transcription-jobs";
import { GatedTranscriber } from "./gated-transcriber";

// The quotas that depend on time, on a fake clock: vitest fakes the global Date and setTimeout the
// stand-in reads, while file I/O (and setImmediate, with which these tests wait for it) stays real.

const VOICEMAIL = new URL("../../../../fixtures/voicemail/telephony/no-message.wav", import.meta.url);
const root = temporaryDirectory("voxtrail-transcribe-clock-");

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-12-06T10:00:00Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Resolves once `check` holds, letting real I/O run between tries. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
}

describe("a requests-per-second quota", () => {
  it("admits its limit in each clock second and refuses the rest of that second", () => {
    vi.setSystemTime(new Date("2026-12-06T10:00:00.500Z"));
    const rate = new OperationRate("getTranscriptionJobPerSecond", 2);
    expect([rate.admit(), rate.admit(), rate.admit()]).toEqual([true, true, false]);
    vi.advanceTimersByTime(499);
    expect(rate.admit()).toBe(false);
    vi.advanceTimersByTime(1);
    expect([rate.admit(), rate.admit(), rate.admit()]).toEqual([true, true, false]);
  });

  it("keeps the most admitted in one second, the most that arrived and the refusals", () => {
    const rate = new OperationRate("startTranscriptionJobPerSecond", 2);
    for (let i = 0; i < 5; i++) rate.admit();
    vi.advanceTimersByTime(1000);
    rate.admit();
    expect(rate.use()).toEqual({
      name: "startTranscriptionJobPerSecond",
      peak: 2,
      limit: 2,
      demand: 5,
      refused: 3,
    });
  });
});

describe("a job's run time", () => {
  async function jobsOver(runTime?: { fixedSeconds: number; secondsPerAudioSecond: number }) {
    const store = new DirectoryStore({ root: join(root(), `store-${Math.random().toString(36).slice(2)}`) });
    const bytes = await readFile(VOICEMAIL);
    await store.put("media.wav", bytes, { contentType: "audio/wav" });
    const gate = new GatedTranscriber();
    const jobs = new TranscriptionJobs(store, gate, {
      accountId: "000000000000",
      region: "us-east-1",
      quotas: transcribeQuotas(),
      ...(runTime ? { runTime } : {}),
    });
    jobs.start({
      TranscriptionJobName: "timed",
      Media: { MediaFileUri: `s3://${store.bucket}/media.wav` },
      LanguageCode: "en-US",
      OutputBucketName: store.bucket,
      OutputKey: "out/timed.json",
    });
    await until(() => gate.waiting === 1);
    gate.open();
    return { jobs, audioMs: normalizeForTranscription(bytes).durationMs };
  }

  it("is fixed seconds plus seconds per audio second, on the global clock", async () => {
    const { jobs, audioMs } = await jobsOver({ fixedSeconds: 2, secondsPerAudioSecond: 0.5 });
    const runMs = Math.ceil(2000 + 0.5 * audioMs);
    // Once the output is written, the job waits out the rest of its time on a timer.
    await until(() => vi.getTimerCount() === 1);
    await vi.advanceTimersByTimeAsync(runMs - 1);
    expect(jobs.get("timed").TranscriptionJobStatus).toBe("IN_PROGRESS");
    await vi.advanceTimersByTimeAsync(1);
    await until(() => jobs.get("timed").TranscriptionJobStatus !== "IN_PROGRESS");
    const job = jobs.get("timed");
    expect(job.TranscriptionJobStatus).toBe("COMPLETED");
    expect(Math.round(((job.CompletionTime ?? 0) - (job.StartTime ?? 0)) * 1000)).toBe(runMs);
  });

  it("is as long as the recogniser takes by default: the job ends with the clock standing still", async () => {
    const { jobs } = await jobsOver();
    await until(() => jobs.get("timed").TranscriptionJobStatus !== "IN_PROGRESS");
    const job = jobs.get("timed");
    expect(job.TranscriptionJobStatus).toBe("COMPLETED");
    expect(job.CompletionTime).toBe(job.StartTime);
  });
});
