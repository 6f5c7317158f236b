import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { GetQueueAttributesCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { ActivityRecord, InvalidInput, JobReport } from "@voxtrail/core";
import {
  BUNDLED_VOICEMAILS_DIR,
  type JobResult,
  LocalRuntime,
  type SqsDelivery,
  SqsEventSource,
} from "@voxtrail/local";
import { S3Store } from "@voxtrail/storage";
import { jobIdFor, keys, ObjectCreatedEvent, objectKeyOf } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asS3Sends, createS3EventQueue, type S3EventQueue } from "../support/s3-event-queue";
import { SIMULATED_TRANSCRIBER } from "../support/simulated-transcriber";

// The shortest bundled voicemail, transcription simulated: this is about the event plumbing.
const VOICEMAIL = join(BUNDLED_VOICEMAILS_DIR, "no-message.wav");
/** Where it is uploaded: a name S3's event encoding changes (space, '+', '%', non-ASCII). */
const KEY = keys.incomingVoicemail("a b+c%ü.wav");

let plumbing: S3EventQueue;

beforeAll(async () => {
  plumbing = await createS3EventQueue();
});

afterAll(async () => {
  await plumbing.remove();
});

/** Body and sha256 of an object in the moto bucket, read with the plain S3 client. */
async function objectInBucket(key: string): Promise<{ body: Buffer; sha256: string }> {
  const output = await plumbing.s3.send(new GetObjectCommand({ Bucket: plumbing.bucket, Key: key }));
  const body = Buffer.from((await output.Body?.transformToByteArray()) ?? []);
  return { body, sha256: createHash("sha256").update(body).digest("hex") };
}

async function messagesInQueue(): Promise<number> {
  const { Attributes } = await plumbing.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: plumbing.queueUrl,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

describe("S3 -> EventBridge -> SQS on moto_server, consumed by the local runtime", () => {
  it("runs the workflow for the voicemail the rule matched, with artifacts and lineage in the bucket", async () => {
    const store = new S3Store({ client: plumbing.s3, bucket: plumbing.bucket });
    // One object outside incoming/voicemail/ (the rule must not match it), then the voicemail.
    await store.put("outgoing/no-message.wav", createReadStream(VOICEMAIL), { contentType: "audio/wav" });
    const uploaded = await store.put(KEY, createReadStream(VOICEMAIL), { contentType: "audio/wav" });
    expect(uploaded.versionId).toBeTruthy();

    const runtime = await LocalRuntime.start({
      store,
      retryIntervalMs: 10,
      providers: SIMULATED_TRANSCRIBER,
    });
    const source = new SqsEventSource<{ event: unknown; result: JobResult }>({
      client: plumbing.sqs,
      queueUrl: plumbing.queueUrl,
      // The local runtime reads the event as S3 sends it: moto's key, re-encoded (asS3Sends).
      handle: async (event) => ({ event, result: await runtime.runEvent(asS3Sends(event)) }),
      batchSize: 10,
      waitTimeSeconds: 1,
    });
    const deliveries: SqsDelivery<{ event: unknown; result: JobResult }>[] = [];
    try {
      // moto delivers the events during PutObject: every match is already queued, so two polls
      // (the second one empty) see all the rule delivered.
      deliveries.push(...(await source.poll()), ...(await source.poll()));
    } finally {
      await runtime.close();
    }

    expect(deliveries.map((delivery) => delivery.type)).toEqual(["handled"]);
    const delivery = deliveries[0] as Extract<(typeof deliveries)[number], { type: "handled" }>;
    const { event, result } = delivery.result;
    // moto's event, unlike AWS's (docs/architecture.md, "moto's S3 events"): reason `ObjectCreated`,
    // `eTag`, and the key raw where S3 form-encodes it. Should moto start encoding it, this fails:
    // then asS3Sends must stop re-encoding it.
    expect(event).toMatchObject({
      source: "aws.s3",
      "detail-type": "Object Created",
      detail: {
        bucket: { name: plumbing.bucket },
        object: { key: KEY, "version-id": uploaded.versionId },
        reason: "ObjectCreated",
      },
    });
    // Read as it came, moto's key is not what S3 would send: decoding it fails ('%ü'), where the
    // event as S3 sends it decodes to the key uploaded.
    expect(() => objectKeyOf(ObjectCreatedEvent.parse(event))).toThrow(InvalidInput);
    expect(objectKeyOf(ObjectCreatedEvent.parse(asS3Sends(event)))).toBe(KEY);
    expect(result.status, JSON.stringify(result.error)).toBe("SUCCEEDED");
    expect(result.key).toBe(KEY);
    // The job's identity: bucket, key, version id and the ETag (which moto's event calls `eTag`).
    expect(result.jobId).toBe(
      jobIdFor({
        bucket: plumbing.bucket,
        key: result.key,
        versionId: uploaded.versionId,
        etag: uploaded.etag,
      }),
    );
    expect(result.report?.jobId).toBe(result.jobId);
    expect(await messagesInQueue()).toBe(0);

    // The report, read back from the bucket with the plain client.
    const report = JobReport.parse(
      JSON.parse((await objectInBucket(keys.report(result.jobId))).body.toString()),
    );
    expect(report).toMatchObject({
      outcome: "succeeded",
      source: {
        bucket: plumbing.bucket,
        key: KEY,
        versionId: uploaded.versionId,
        sha256: uploaded.sha256,
        bytes: uploaded.bytes,
      },
    });
    expect(report.artifacts.map((artifact) => artifact.kind)).toEqual(
      expect.arrayContaining(["source-audio", "normalized-audio", "transcript", "reply-text", "reply-audio"]),
    );
    for (const artifact of report.artifacts) {
      expect(artifact.uri).toBe(`s3://${plumbing.bucket}/${artifact.key}`);
      const stored = await objectInBucket(artifact.key);
      expect({ key: artifact.key, sha256: stored.sha256, bytes: stored.body.length }).toEqual({
        key: artifact.key,
        sha256: artifact.sha256,
        bytes: artifact.bytes,
      });
    }

    // One activity record per stage, in the bucket, each output's hash matching the object.
    const listed = await plumbing.s3.send(
      new ListObjectsV2Command({ Bucket: plumbing.bucket, Prefix: keys.lineagePrefix(result.jobId) }),
    );
    const rawRecords: unknown[] = await Promise.all(
      (listed.Contents ?? []).map(async ({ Key }) =>
        JSON.parse((await objectInBucket(Key as string)).body.toString()),
      ),
    );
    const records = rawRecords.map((raw) => ActivityRecord.parse(raw));
    expect(records.map((record) => record.stage).sort()).toEqual(
      ["Finalize", "Ingest", "Reason", "Synthesize", "Transcribe"].sort(),
    );
    // The Ingest record's source ref, as written (a SourceRef: with the bucket's version id).
    const ingest = rawRecords.find((raw) => (raw as { stage: string }).stage === "Ingest") as {
      inputs: unknown[];
    };
    expect(ingest.inputs[0]).toMatchObject({
      kind: "source-audio",
      uri: `s3://${plumbing.bucket}/${KEY}`,
      versionId: uploaded.versionId,
      sha256: uploaded.sha256,
    });
    for (const output of records.flatMap((record) => record.outputs)) {
      expect((await objectInBucket(output.key)).sha256, output.key).toBe(output.sha256);
    }
    // Nothing ran for the object outside the prefix.
    expect((await store.list("reports/")).length).toBe(1);
  }, 180_000);
});

describe("SqsEventSource's delivery rules on a moto queue", () => {
  function sourceWith(handle: (event: unknown) => Promise<string>) {
    return new SqsEventSource({
      client: plumbing.sqs,
      queueUrl: plumbing.queueUrl,
      handle,
      batchSize: 10,
      waitTimeSeconds: 1,
      visibilityTimeoutSeconds: 1,
    });
  }

  it("reports and deletes a message that is not a JSON event or that the handler refuses as bad input", async () => {
    await plumbing.sqs.send(new SendMessageCommand({ QueueUrl: plumbing.queueUrl, MessageBody: "not json" }));
    await plumbing.sqs.send(new SendMessageCommand({ QueueUrl: plumbing.queueUrl, MessageBody: "[1,2]" }));
    await plumbing.sqs.send(
      new SendMessageCommand({ QueueUrl: plumbing.queueUrl, MessageBody: JSON.stringify({ source: "x" }) }),
    );
    const handled: unknown[] = [];
    const deliveries = await sourceWith(async (event) => {
      handled.push(event);
      throw new InvalidInput("the event is not an S3 Object Created event");
    }).poll();

    expect(
      deliveries.map((delivery) => (delivery.type === "rejected" ? delivery.reason : delivery.type)),
    ).toEqual([
      "the message body (8 bytes) is not JSON",
      "the message body is JSON but not an event object",
      "InvalidInput: the event is not an S3 Object Created event",
    ]);
    expect(handled).toEqual([{ source: "x" }]);
    expect(await messagesInQueue()).toBe(0);
  });

  it("leaves a message whose handler failed on the queue, and it is delivered again", async () => {
    await plumbing.sqs.send(
      new SendMessageCommand({ QueueUrl: plumbing.queueUrl, MessageBody: JSON.stringify({ n: 1 }) }),
    );
    let calls = 0;
    const source = sourceWith(async () => {
      calls += 1;
      if (calls === 1) throw new Error("the store is unreachable");
      return "done";
    });
    const [first] = await source.poll();
    expect(first).toMatchObject({ type: "failed", error: { message: "the store is unreachable" } });
    // Visible again once the 1 s visibility timeout ends.
    let again: SqsDelivery<string>[] = [];
    for (let poll = 0; poll < 5 && again.length === 0; poll += 1) again = await source.poll();
    expect(again).toEqual([{ type: "handled", messageId: first?.messageId, result: "done" }]);
    expect(await messagesInQueue()).toBe(0);
  });

  it("stops long-polling when its signal aborts", async () => {
    const stop = new AbortController();
    const source = new SqsEventSource({
      client: plumbing.sqs,
      queueUrl: plumbing.queueUrl,
      handle: async () => "done",
      waitTimeSeconds: 20,
    });
    const running = source.run(stop.signal, () => {});
    setTimeout(() => stop.abort(), 200);
    await expect(running).resolves.toBeUndefined();
  }, 10_000);
});
