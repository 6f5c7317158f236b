import { readFile } from "node:fs/promises";
import {
  DeleteTranscriptionJobCommand,
  GetTranscriptionJobCommand,
  StartTranscriptionJobCommand,
} from "@aws-sdk/client-transcribe";
import { LOCAL_BOUNDARY } from "@voxtrail/core";
import { transcriptOfTranscribeOutput } from "@voxtrail/providers";
import { describe, expect, it } from "vitest";
import { endedJob, localTranscribe } from "./local-transcribe";

const VOICEMAIL = new URL("../../../../fixtures/voicemail/telephony/no-message.wav", import.meta.url);

const local = localTranscribe("voxtrail-transcribe-");

/** Starts a job on `mediaKey` whose output goes to `transcribe/<name>.json` in the store. */
function start(name: string, mediaKey: string) {
  return local.client.send(
    new StartTranscriptionJobCommand({
      TranscriptionJobName: name,
      Media: { MediaFileUri: `s3://${local.store.bucket}/${mediaKey}` },
      LanguageCode: "en-US",
      OutputBucketName: local.store.bucket,
      OutputKey: `transcribe/${name}.json`,
    }),
  );
}

describe("the local Transcribe endpoint, through the AWS SDK's Transcribe client", () => {
  it("transcribes an 8 kHz voicemail from the store and writes Transcribe's output document where asked", async () => {
    await local.store.put("incoming/voicemail/no-message.wav", await readFile(VOICEMAIL), {
      contentType: "audio/wav",
    });
    const { TranscriptionJob: started } = await start("vm-1-run-01", "incoming/voicemail/no-message.wav");
    expect(started).toMatchObject({
      TranscriptionJobName: "vm-1-run-01",
      TranscriptionJobStatus: "IN_PROGRESS",
    });
    expect(started?.CreationTime).toBeInstanceOf(Date);

    const job = await endedJob(local.client, "vm-1-run-01");
    expect(job).toMatchObject({ TranscriptionJobStatus: "COMPLETED", LanguageCode: "en-US" });
    expect(job.Transcript?.TranscriptFileUri).toBe(local.store.uri("transcribe/vm-1-run-01.json"));
    const document = JSON.parse((await local.store.getBytes("transcribe/vm-1-run-01.json")).toString("utf8"));
    expect(document).toMatchObject({ jobName: "vm-1-run-01", status: "COMPLETED" });
    const transcript = transcriptOfTranscribeOutput(document, {
      language: "en-US",
      audioMs: 11_900,
      processor: {
        provider: "local-transcribe-endpoint",
        model: "pocketsphinx",
        version: "test",
        boundary: LOCAL_BOUNDARY,
      },
    });
    expect(transcript.words.length).toBeGreaterThan(0);
    expect(transcript.text).toBe(transcript.words.map((w) => w.word).join(" "));
    for (const word of transcript.words) expect(word.endMs).toBeGreaterThanOrEqual(word.startMs);
  }, 120_000);

  it("refuses a second job of the same name, as Transcribe does: that job is the caller's own", async () => {
    await local.store.put("incoming/voicemail/again.wav", await readFile(VOICEMAIL), {
      contentType: "audio/wav",
    });
    await start("vm-2-run-01", "incoming/voicemail/again.wav");
    await expect(start("vm-2-run-01", "incoming/voicemail/again.wav")).rejects.toMatchObject({
      name: "ConflictException",
      message: "The requested job name already exists. Use a different job name.",
    });
    await local.endpoint.settled();
  }, 120_000);

  it("refuses a job name outside Transcribe's pattern, and media outside its store", async () => {
    await expect(start("vm/3", "incoming/voicemail/again.wav")).rejects.toMatchObject({
      name: "BadRequestException",
    });
    await expect(
      local.client.send(
        new StartTranscriptionJobCommand({
          TranscriptionJobName: "vm-3",
          Media: { MediaFileUri: "s3://someone-elses-bucket/call.wav" },
          LanguageCode: "en-US",
          OutputBucketName: local.store.bucket,
          OutputKey: "transcribe/vm-3.json",
        }),
      ),
    ).rejects.toMatchObject({ name: "BadRequestException" });
  });

  it("fails a job whose media is not audio with Transcribe's reason, naming nothing of its content", async () => {
    await local.store.put("incoming/voicemail/note.wav", "call me back about order 4271", {
      contentType: "audio/wav",
    });
    await start("vm-4-run-01", "incoming/voicemail/note.wav");
    const job = await endedJob(local.client, "vm-4-run-01");
    expect(job).toMatchObject({
      TranscriptionJobStatus: "FAILED",
      FailureReason: "Unsupported media format",
    });
    expect(await local.store.head("transcribe/vm-4-run-01.json")).toBeUndefined();
  });

  it("deletes a job; a job it does not know is NotFoundException", async () => {
    await local.client.send(new DeleteTranscriptionJobCommand({ TranscriptionJobName: "vm-4-run-01" }));
    await expect(
      local.client.send(new GetTranscriptionJobCommand({ TranscriptionJobName: "vm-4-run-01" })),
    ).rejects.toMatchObject({ name: "NotFoundException" });
  });
});
