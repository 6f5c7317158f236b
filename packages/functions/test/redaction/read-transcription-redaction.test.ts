import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import type { ActivityRecord, RedactionSettings, TranscriptionJobRequest } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import type { JobState } from "../../src/state";
import { createStageHandlers } from "../../src/workflow-handlers";
import { context, testDependencies } from "../stage-dependencies";

/** Transcribe with redaction: the start's request is kept, its job completed, its document read as a transcript. */
function transcribeService(requests: TranscriptionJobRequest[]) {
  const processor = {
    provider: "amazon-transcribe",
    model: "transcribe-batch",
    version: "2017-10-26",
    boundary: { kind: "aws-account" as const, service: "transcribe", region: "us-east-1" },
  };
  return {
    processor,
    jobName: (jobId: string, run: number) => `voxtrail-test-${jobId}-run-${run}`,
    start: async (request: TranscriptionJobRequest) => {
      requests.push(request);
      return "started" as const;
    },
    describe: async () => ({ status: "COMPLETED" as const }),
    transcriptOf: (document: unknown, { language, audioMs }: { language: string; audioMs: number }) => {
      const text = (document as { text: string }).text;
      return { text, words: [], language, audioMs, processor };
    },
  };
}

async function readWith(redaction: RedactionSettings, documents: Record<string, string>) {
  const requests: TranscriptionJobRequest[] = [];
  const { deps } = await testDependencies({
    transcriptionService: transcribeService(requests),
    workflowCallback: { resume: async () => "resumed" },
    language: "en",
    redaction,
  });
  const tone = new Int16Array(8000).map((_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
  );
  const audio = writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(tone));
  const stored = await deps.store.put("incoming/voicemail/a.wav", audio, { contentType: "audio/wav" });
  const handlers = createStageHandlers(deps);
  const event = {
    source: "aws.s3",
    "detail-type": "Object Created",
    time: "2026-01-01T00:00:01.000Z",
    detail: {
      bucket: { name: deps.store.bucket },
      object: { key: "incoming/voicemail/a.wav", etag: (stored.etag ?? "").replaceAll('"', "") },
    },
  };
  const execution = { id: "arn:aws:states:us-east-1:000000000000:execution:vm:1", startTime: event.time };
  const job = (await handlers.ingest({ event, execution }, context)) as JobState;
  const transcription = (await handlers.transcribe({ step: "start", job }, context)) as { outputKey: string };
  const dir = transcription.outputKey.slice(0, transcription.outputKey.lastIndexOf("/") + 1);
  for (const [file, text] of Object.entries(documents))
    await deps.store.put(`${dir}${file}`, JSON.stringify({ text }), { contentType: "application/json" });
  const result = (await handlers.transcribe(
    { step: "read", job: { ...job, transcription: { ...transcription, waits: { count: 0 } } } },
    context,
  )) as { transcript: { key: string } };
  const records = await deps.store.list(`lineage/${job.jobId}/`);
  const readKey = records.filter((key) => /\/transcribe-/i.test(key)).at(-1) as string;
  const read = JSON.parse((await deps.store.getBytes(readKey)).toString()) as ActivityRecord;
  const transcript = JSON.parse((await deps.store.getBytes(result.transcript.key)).toString()) as {
    text: string;
  };
  return { requests, transcription, result, read, transcript };
}

describe("the Transcribe job's steps with redaction on", () => {
  it("start Transcribe into the unredacted location with the stage's redaction, and read the unredacted document", async () => {
    const { requests, transcription, result, read, transcript } = await readWith(
      { output: "redacted_and_unredacted" },
      { "transcribe-output.json": "order 4271", "redacted-transcribe-output.json": "order 4271 [PII]" },
    );
    expect(requests[0]?.redaction).toEqual({ output: "redacted_and_unredacted" });
    expect(transcription.outputKey).toMatch(/^artifacts\/[^/]+\/unredacted\/transcribe-output\.json$/);
    expect(result.transcript.key).toMatch(/\/unredacted\/transcript\.json$/);
    expect(transcript.text).toBe("order 4271");
    // Both documents Transcribe wrote are recorded (verify finds no object without lineage).
    expect(
      read.outputs
        .filter((ref) => ref.kind === "transcription-output")
        .map((ref) => ref.key.split("/").at(-1)),
    ).toEqual(["transcribe-output.json", "redacted-transcribe-output.json"]);
  });

  it("read Transcribe's redacted document with output 'redacted', and record the redaction", async () => {
    const { transcript, read } = await readWith(
      { output: "redacted" },
      { "redacted-transcribe-output.json": "order 4271 [PII]" },
    );
    expect(transcript.text).toBe("order 4271 [PII]");
    expect(read.redactions).toEqual([expect.objectContaining({ by: ["amazon-transcribe"] })]);
  });

  it("read the one document of a job Transcribe did not redact (a language it cannot)", async () => {
    const { transcript } = await readWith(
      { output: "redacted" },
      { "transcribe-output.json": "numero 4271" },
    );
    expect(transcript.text).toBe("numero 4271");
  });
});
