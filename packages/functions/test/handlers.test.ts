import { createHash } from "node:crypto";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import { ActivityRecord, JobReport, LineageSummary, LOCAL_BOUNDARY, type Transcript } from "@voxtrail/core";
import { JsonlRecordLookup, LocalReasoner } from "@voxtrail/providers";
import { keys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { putArtifact } from "../src/artifacts";
import type { FinalizeInput, JobState, ReasonInput } from "../src/state";
import { createStageHandlers } from "../src/workflow-handlers";
import { context, testDependencies } from "./stage-dependencies";

const execution = {
  id: "arn:aws:states:us-east-1:000000000000:execution:vm:1",
  startTime: "2026-01-01T00:00:01.500Z",
};

/** The event of an upload of `key`; with `etag`, of exactly that object (read with If-Match). */
function objectCreated(bucket: string, key: string, etag?: string) {
  return {
    source: "aws.s3",
    "detail-type": "Object Created",
    time: "2026-01-01T00:00:01.000Z",
    detail: { bucket: { name: bucket }, object: { key, ...(etag ? { etag } : {}) } },
  };
}

/** One second of a 440 Hz tone as 8 kHz mu-law: telephony audio. */
function telephonyTone(): Uint8Array {
  const samples = new Int16Array(8000).map((_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
  );
  return writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples));
}

describe("ingest", () => {
  it("normalises telephony audio to 16 kHz PCM, hashes the source, and records the activity", async () => {
    const { deps } = await testDependencies();
    const stored = await deps.store.put("incoming/voicemail/a.wav", telephonyTone(), {
      contentType: "audio/wav",
    });
    const etag = (stored.etag ?? "").replaceAll('"', "");
    const job = (await createStageHandlers(deps).ingest(
      { event: objectCreated(deps.store.bucket, "incoming/voicemail/a.wav", etag), execution },
      context,
    )) as JobState;
    expect(job.jobId).toMatch(/^vm-[0-9a-f]{20}$/);
    expect(job.audioMs).toBeCloseTo(1000, 0);
    expect(job.source).toMatchObject({ kind: "source-audio", key: "incoming/voicemail/a.wav", etag });
    expect(job.normalizedAudio).toMatchObject({ kind: "normalized-audio", contentType: "audio/wav" });
    expect(job.timings.find((t) => t.name === "ingest.queueDelay")?.ms).toBe(500);
    const [record] = await deps.store.list(`lineage/${job.jobId}/`);
    const activity = ActivityRecord.parse(JSON.parse((await deps.store.getBytes(record!)).toString()));
    expect(activity).toMatchObject({ stage: "Ingest", attempt: 1, outcome: "succeeded" });
    expect(activity.inputs[0]?.sha256).toBe(job.source.sha256);
    expect(activity.outputs[0]?.sha256).toBe(job.normalizedAudio.sha256);
  });

  it("runs nothing for a second delivery of an upload whose job another execution owns", async () => {
    const { deps } = await testDependencies({
      executions: { isRunning: async (executionId) => executionId === execution.id },
    });
    await deps.store.put("incoming/voicemail/a.wav", telephonyTone(), { contentType: "audio/wav" });
    const ingest = createStageHandlers(deps).ingest;
    const event = objectCreated(deps.store.bucket, "incoming/voicemail/a.wav");
    const first = (await ingest({ event, execution }, context)) as JobState;
    const before = await deps.store.list("");
    const second = await ingest({ event, execution: { ...execution, id: `${execution.id}-again` } }, context);
    expect(second).toEqual({
      jobId: first.jobId,
      duplicate: { reason: "in-progress", executionId: execution.id, run: 1 },
    });
    expect(await deps.store.list("")).toEqual(before);
  });

  it("rejects a non-audio file with InvalidAudio, records the failed attempt, and counts attempts", async () => {
    const { deps } = await testDependencies();
    await deps.store.put("incoming/voicemail/notes.txt", "call me maybe", { contentType: "text/plain" });
    const ingest = createStageHandlers(deps).ingest;
    const input = { event: objectCreated(deps.store.bucket, "incoming/voicemail/notes.txt"), execution };
    await expect(ingest(input, context)).rejects.toMatchObject({
      name: "InvalidAudio",
      message: /not a WAV file/,
    });
    await expect(ingest(input, context)).rejects.toMatchObject({ name: "InvalidAudio" });
    const records = await deps.store.list("lineage/");
    expect(records.map((key) => key.split("/").at(-1))).toEqual(["ingest-01.json", "ingest-02.json"]);
    const activity = ActivityRecord.parse(JSON.parse((await deps.store.getBytes(records[1]!)).toString()));
    expect(activity).toMatchObject({ outcome: "failed", attempt: 2, error: { name: "InvalidAudio" } });
    expect(JSON.stringify(activity)).not.toContain("call me maybe");
  });

  it("reads the object an S3 event's form-encoded key names, and records the key as S3 has it", async () => {
    const { deps } = await testDependencies();
    const key = "incoming/voicemail/a b+c%(1).wav";
    await deps.store.put(key, telephonyTone(), { contentType: "audio/wav" });
    const event = objectCreated(deps.store.bucket, "incoming/voicemail/a+b%2Bc%25%281%29.wav");
    const job = (await createStageHandlers(deps).ingest(
      { event: { ...event, detail: { ...event.detail, reason: "PutObject" } }, execution },
      context,
    )) as JobState;
    expect(job.source).toMatchObject({ key, uri: deps.store.uri(key) });
  });

  it("refuses an S3 event whose key is not URL-encoding with InvalidInput, and its failure is still reported", async () => {
    const { deps, published } = await testDependencies();
    const event = objectCreated(deps.store.bucket, "incoming/voicemail/maria%zz.wav");
    const state = { ...event, detail: { ...event.detail, reason: "PutObject" } };
    const handlers = createStageHandlers(deps);
    const error = (await handlers
      .ingest({ event: state, execution }, context)
      .catch((e: Error) => e)) as Error;
    expect(error).toMatchObject({ name: "InvalidInput" });
    expect(error.message).toMatch(/not followed by two hex digits/);
    expect(error.message).not.toContain("maria");
    const failure = { Error: "InvalidInput", Cause: JSON.stringify({ errorMessage: error.message }) };
    const out = (await handlers.recordFailure(
      { stage: "Ingest", state: { ...state, failure }, execution },
      context,
    )) as { report: { key: string } };
    const report = JobReport.parse(JSON.parse((await deps.store.getBytes(out.report.key)).toString()));
    expect(report).toMatchObject({
      outcome: "failed",
      source: { key: "incoming/voicemail/maria%zz.wav" },
      failure: { stage: "Ingest", error: { name: "InvalidInput" } },
    });
    expect(published.map((p) => p.detail.errorName)).toEqual(["InvalidInput"]);
  });

  it("refuses an event for another bucket", async () => {
    const { deps } = await testDependencies();
    await expect(
      createStageHandlers(deps).ingest(
        { event: objectCreated("elsewhere", "incoming/voicemail/a.wav"), execution },
        context,
      ),
    ).rejects.toMatchObject({ name: "InvalidInput" });
  });
});

describe("stage handler input and errors", () => {
  it("names the malformed paths, not the values", async () => {
    const { deps } = await testDependencies();
    const error = await createStageHandlers(deps)
      .transcribe({ jobId: 42, secret: "caller words" }, context)
      .catch((e: Error) => e);
    expect(error).toMatchObject({ name: "InvalidInput" });
    expect((error as Error).message).toMatch(/jobId/);
    expect((error as Error).message).not.toContain("caller words");
  });

  it("passes on only the name of an error that is not ours", async () => {
    const { deps } = await testDependencies({
      transcriber: {
        processor: { provider: "t", model: "t", version: "0", boundary: { kind: "local" } },
        transcribe: async () => {
          throw new TypeError("cannot read 'Maria Lopez' of undefined");
        },
      },
    });
    await deps.store.put("incoming/voicemail/a.wav", telephonyTone(), { contentType: "audio/wav" });
    const handlers = createStageHandlers(deps);
    const job = await handlers.ingest(
      { event: objectCreated(deps.store.bucket, "incoming/voicemail/a.wav"), execution },
      context,
    );
    const error = (await handlers.transcribe(job, context).catch((e: Error) => e)) as Error;
    expect(error.name).toBe("TypeError");
    expect(error.message).not.toContain("Maria");
  });
});

describe("recordFailure", () => {
  it("writes a failed report from the raw S3 event when Ingest failed, and announces it with pointers only", async () => {
    const { deps, published } = await testDependencies();
    const state = {
      ...objectCreated(deps.store.bucket, "incoming/voicemail/notes.txt"),
      failure: {
        Error: "InvalidAudio",
        Cause: JSON.stringify({
          errorType: "InvalidAudio",
          errorMessage: "not a WAV file: expected a RIFF/WAVE header",
        }),
      },
    };
    const out = (await createStageHandlers(deps).recordFailure(
      { stage: "Ingest", state, execution },
      context,
    )) as {
      cause: string;
      report: { key: string };
    };
    expect(out.cause).toBe("InvalidAudio: not a WAV file: expected a RIFF/WAVE header");
    const report = JobReport.parse(JSON.parse((await deps.store.getBytes(out.report.key)).toString()));
    expect(report).toMatchObject({
      outcome: "failed",
      source: { key: "incoming/voicemail/notes.txt" },
      failure: { stage: "Ingest", error: { name: "InvalidAudio" } },
      artifacts: [],
    });
    expect(published).toEqual([
      {
        detailType: "Voicemail Job Failed",
        detail: expect.objectContaining({
          jobId: report.jobId,
          failedStage: "Ingest",
          errorName: "InvalidAudio",
        }),
      },
    ]);
  });

  it("ends the job with a lineage summary copying every record of the job, its own included", async () => {
    const { deps } = await testDependencies();
    await deps.store.put("incoming/voicemail/notes.txt", "call me maybe", { contentType: "text/plain" });
    const event = objectCreated(deps.store.bucket, "incoming/voicemail/notes.txt");
    const handlers = createStageHandlers(deps);
    await expect(handlers.ingest({ event, execution }, context)).rejects.toMatchObject({
      name: "InvalidAudio",
    });
    const out = (await handlers.recordFailure(
      { stage: "Ingest", state: { ...event, failure: { Error: "InvalidAudio" } }, execution },
      context,
    )) as { jobId: string };
    const records = await deps.store.list(keys.lineagePrefix(out.jobId));
    expect(records.map((key) => key.split("/").at(-1))).toEqual([
      "ingest-01.json",
      "recordingestfailure-01.json",
    ]);
    const written = JSON.parse((await deps.store.getBytes(keys.lineageSummary(out.jobId))).toString());
    const summary = LineageSummary.parse(written);
    expect(summary.jobId).toBe(out.jobId);
    // Each copy, serialised as the recorder writes records, is its record's bytes: verify checks
    // such copies by hash.
    for (const entry of written.records) {
      expect(`${JSON.stringify(entry.record, null, 2)}\n`).toBe(
        (await deps.store.getBytes(entry.key)).toString(),
      );
    }
    expect(summary.records).toEqual(
      await Promise.all(
        records.map(async (key) => {
          const bytes = await deps.store.getBytes(key);
          return {
            key,
            sha256: createHash("sha256").update(bytes).digest("hex"),
            record: ActivityRecord.parse(JSON.parse(bytes.toString())),
          };
        }),
      ),
    );
    // The failure record follows the failed attempt in the job's chain, by its bytes' hash.
    const failureRecord = summary.records[1]?.record;
    expect(failureRecord?.previousRecord).toEqual({ key: records[0], sha256: summary.records[0]?.sha256 });
  });

  it("keeps a Step Functions error's plain-text cause", async () => {
    const { deps } = await testDependencies();
    const state = {
      ...objectCreated(deps.store.bucket, "incoming/voicemail/slow.wav"),
      failure: { Error: "States.Timeout", Cause: "Task timed out after 300 seconds" },
    };
    const out = (await createStageHandlers(deps).recordFailure(
      { stage: "Ingest", state, execution },
      context,
    )) as {
      cause: string;
    };
    expect(out.cause).toBe("States.Timeout: Task timed out after 300 seconds");
  });
});

describe("reason", () => {
  it("has a lookup that reads its records on first use read them before recording its processor", async () => {
    let version = "not read yet";
    const records = {
      get processor() {
        return { provider: "s3-records", model: "records.jsonl", version, boundary: LOCAL_BOUNDARY };
      },
      load: async () => {
        version = "abc123abc123";
      },
      find: async () => undefined,
    };
    const { deps } = await testDependencies({
      records,
      transcriber: {
        processor: { provider: "t", model: "t", version: "0", boundary: LOCAL_BOUNDARY },
        transcribe: async (): Promise<Transcript> => ({
          text: "hello",
          words: [],
          language: "en",
          audioMs: 1000,
          processor: { provider: "t", model: "t", version: "0", boundary: LOCAL_BOUNDARY },
        }),
      },
      reasoner: {
        processor: { provider: "r", model: "r", version: "0", boundary: LOCAL_BOUNDARY },
        reason: async (transcript) => ({
          intent: "other",
          entities: {},
          summary: transcript.text,
          match: { outcome: "not-found", searchedFor: [] },
          replyText: "Thanks.",
          processor: { provider: "r", model: "r", version: "0", boundary: LOCAL_BOUNDARY },
        }),
      },
    });
    await deps.store.put("incoming/voicemail/a.wav", telephonyTone(), { contentType: "audio/wav" });
    const handlers = createStageHandlers(deps);
    const job = (await handlers.ingest(
      { event: objectCreated(deps.store.bucket, "incoming/voicemail/a.wav"), execution },
      context,
    )) as JobState;
    const transcribe = await handlers.transcribe(job, context);
    await handlers.reason({ ...job, transcribe } as ReasonInput, context);
    const [recordKey] = await deps.store.list(keys.lineage(job.jobId, "Reason", 1));
    const activity = ActivityRecord.parse(JSON.parse((await deps.store.getBytes(recordKey!)).toString()));
    expect(activity.processors).toContainEqual(
      expect.objectContaining({ provider: "s3-records", version: "abc123abc123" }),
    );
  });
});

describe("a fact the recogniser was unsure of", () => {
  it("is named, by kind and why, in Reason's result and the job report, never by value", async () => {
    const spoken = "hi my order number is four two seven one it arrived broken".split(" ");
    const words = spoken.map((word, i) => ({
      word,
      startMs: i * 300,
      endMs: i * 300 + 250,
      confidence: word === "seven" ? 0.05 : 0.95,
    }));
    const tool = { provider: "t", model: "t", version: "0", boundary: LOCAL_BOUNDARY };
    const { deps, published } = await testDependencies({
      records: new JsonlRecordLookup(JSON.stringify({ type: "order", id: "ord-4271", orderNumber: "4271" })),
      transcriber: {
        processor: tool,
        transcribe: async (): Promise<Transcript> => ({
          text: spoken.join(" "),
          words,
          language: "en",
          audioMs: 1000,
          processor: tool,
        }),
      },
      reasoner: new LocalReasoner(),
    });
    await deps.store.put("incoming/voicemail/a.wav", telephonyTone(), { contentType: "audio/wav" });
    const handlers = createStageHandlers(deps);
    const job = (await handlers.ingest(
      { event: objectCreated(deps.store.bucket, "incoming/voicemail/a.wav"), execution },
      context,
    )) as JobState;
    const transcribe = await handlers.transcribe(job, context);
    const reason = await handlers.reason({ ...job, transcribe } as ReasonInput, context);
    const review = [
      {
        fact: "orderNumber",
        confidence: 0.05,
        threshold: expect.any(Number),
        reason: expect.stringMatching(/^the recogniser's confidence in its words 0\.05 is below /),
      },
    ];
    expect(reason).toMatchObject({ review });
    const replyAudio = await putArtifact(
      deps.store,
      "reply-audio",
      keys.artifact(job.jobId, "reply.wav"),
      telephonyTone(),
      "audio/wav",
    );
    const finalize = (await handlers.finalize(
      {
        ...job,
        transcribe,
        reason,
        synthesize: { replyAudio, audioMs: 1000, rtf: 0.1, timings: [] },
      } as FinalizeInput,
      context,
    )) as { report: { key: string } };
    const report = JobReport.parse(JSON.parse((await deps.store.getBytes(finalize.report.key)).toString()));
    expect(report.review).toMatchObject(review);
    // The report and the events say which fact and why; the number itself stays in the record.
    expect(JSON.stringify(report)).not.toContain("4271");
    expect(JSON.stringify(published)).not.toContain("4271");
    expect(JSON.stringify(reason)).not.toContain("4271");
  });
});
