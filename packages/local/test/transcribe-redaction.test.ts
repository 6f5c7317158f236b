import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeSamples, TRANSCRIPTION_FORMAT, writeWav } from "@voxtrail/audio";
import { type Transcriber, type Transcript, unlessMissing } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transcribeQuotas } from "../src/transcribe-endpoint/transcribe-quotas";
import { TranscriptionJobs } from "../src/transcribe-endpoint/transcription-jobs";

const TEXT =
  "Hi this is Maria, order four two seven one, call me at five five five one two three four five six seven";

const heard: Transcriber = {
  processor: { provider: "stub", model: "stub", version: "1", boundary: { kind: "local" } },
  async transcribe(_wav, options): Promise<Transcript> {
    return {
      text: TEXT,
      words: TEXT.replace(/,/g, "")
        .split(" ")
        .map((word, at) => ({ word, startMs: at * 100, endMs: at * 100 + 90 })),
      language: options.language,
      audioMs: 2000,
      processor: heard.processor,
    };
  },
};

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "voxtrail-transcribe-redaction-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function runJob(output: "redacted" | "redacted_and_unredacted") {
  const store = new DirectoryStore({ root: join(root, output) });
  await store.put(
    "media.wav",
    writeWav(TRANSCRIPTION_FORMAT, encodeSamples(new Int16Array(1600), "pcm_s16le")),
    {
      contentType: "audio/wav",
    },
  );
  const jobs = new TranscriptionJobs(store, heard, {
    accountId: "000000000000",
    region: "us-east-1",
    quotas: transcribeQuotas(),
  });
  jobs.start({
    TranscriptionJobName: "redacting",
    Media: { MediaFileUri: `s3://${store.bucket}/media.wav` },
    LanguageCode: "en-US",
    OutputBucketName: store.bucket,
    OutputKey: "artifacts/j/unredacted/transcribe-output.json",
    ContentRedaction: { RedactionType: "PII", RedactionOutput: output },
  });
  await jobs.settled();
  const read = async (key: string) => (await unlessMissing(store.getBytes(key)))?.toString("utf8");
  return {
    job: jobs.get("redacting"),
    unredacted: await read("artifacts/j/unredacted/transcribe-output.json"),
    redacted: await read("artifacts/j/unredacted/redacted-transcribe-output.json"),
  };
}

describe("the local Transcribe stand-in's ContentRedaction", () => {
  it("writes both transcripts with redacted_and_unredacted, the redacted one beside the other", async () => {
    const { job, unredacted, redacted } = await runJob("redacted_and_unredacted");
    expect(job.TranscriptionJobStatus).toBe("COMPLETED");
    expect(unredacted).toContain("five five five one two three four five six seven");
    expect(redacted).toContain("[PII]");
    expect(redacted).not.toMatch(/five five five/);
    // Transcribe's PII types have no order numbers: ours removes them after it.
    expect(redacted).toContain("four two seven one");
    expect(job.Transcript?.RedactedTranscriptFileUri).toMatch(/redacted-transcribe-output\.json$/);
  });

  it("refuses redaction in a language Transcribe does not redact, as Transcribe does", () => {
    const jobs = new TranscriptionJobs(new DirectoryStore({ root: join(root, "refused") }), heard, {
      accountId: "000000000000",
      region: "us-east-1",
      quotas: transcribeQuotas(),
    });
    expect(() =>
      jobs.start({
        TranscriptionJobName: "en-gb",
        Media: { MediaFileUri: "s3://voxtrail-local/media.wav" },
        LanguageCode: "en-GB",
        OutputBucketName: "voxtrail-local",
        OutputKey: "artifacts/j/unredacted/transcribe-output.json",
        ContentRedaction: { RedactionType: "PII", RedactionOutput: "redacted" },
      }),
    ).toThrow(/ContentRedaction is supported for en-US and es-US only, and not with IdentifyLanguage/);
  });

  it("writes only the redacted transcript with redacted", async () => {
    const { job, unredacted, redacted } = await runJob("redacted");
    expect(job.TranscriptionJobStatus).toBe("COMPLETED");
    expect(unredacted).toBeUndefined();
    expect(redacted).toContain("[PII]");
  });
});
