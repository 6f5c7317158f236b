import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBatchHandlers, type StageHandler } from "@voxtrail/functions";
import {
  BUNDLED_VOICEMAILS_DIR,
  type JobResult,
  LOCAL_BATCH_FUNCTION_ARNS,
  LocalRuntime,
  LocalStateMachine,
  objectCreatedEvent,
} from "@voxtrail/local";
import {
  BATCH_INCOMING_PREFIX,
  BATCH_STATES,
  buildVoicemailBatchDefinition,
  keys,
  LOCAL_ITEMS_FIELD,
  localMapDefinition,
} from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDependencies } from "../../packages/functions/test/stage-dependencies";

const VOICEMAIL_STATE_MACHINE = "arn:aws:states:local:000000000000:stateMachine:voxtrail-voicemail";
const HEAD_OBJECT = "arn:aws:states:::aws-sdk:s3:headObject";
const START_EXECUTION_SYNC = "arn:aws:states:::states:startExecution.sync:2";

let workDir: string;
let runtime: LocalRuntime;
let batch: LocalStateMachine;
const childStarts: unknown[] = [];
/** Each child execution's job result, by the key its event named. */
const childResults = new Map<string, JobResult>();
/** The manifest keys OpenBatch handed the ItemReader, in order. */
const manifestReads: string[] = [];
/** Errors to raise, by voicemail key, before the integration answers: each name once, in order. */
const faults = new Map<string, { head?: string[]; start?: string[] }>();
const headCalls: string[] = [];

/** Raises the next fault queued for `key`, under the name Step Functions would give it. */
function raiseFault(queue: string[] | undefined): void {
  const name = queue?.shift();
  if (name) throw Object.assign(new Error(`injected ${name}`), { name });
}

/** An error with the name Step Functions gives a failed `.sync` child execution. */
class TaskFailed extends Error {
  override readonly name = "States.TaskFailed";
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-batch-"));
  runtime = await LocalRuntime.start({ storeDir: join(workDir, "store") });
  const { store } = runtime;
  const { deps } = await testDependencies({ store });
  const { openBatch } = createBatchHandlers(deps);
  // OpenBatch, then what the Map's ItemReader does with its output: read the manifest at the key
  // it answered (CSV with a header row: one object per row, keyed by the header). Then the two
  // service integrations the batch definition calls, as Step Functions answers them: HeadObject's
  // output, and a finished child execution (a failed child fails the task).
  const handlersByArn: Record<string, StageHandler<unknown>> = {
    [LOCAL_BATCH_FUNCTION_ARNS.openBatch]: async (input, context) => {
      const opened = (await openBatch(input, context)) as { bucket: string; key: string; time: string };
      manifestReads.push(opened.key);
      const [header = "", ...rows] = (await store.getBytes(opened.key)).toString("utf8").split("\n");
      const items = rows.map((row) => ({ [header]: row }));
      return { ...opened, [LOCAL_ITEMS_FIELD]: items };
    },
    [HEAD_OBJECT]: async (input) => {
      const { Key } = input as { Bucket: string; Key: string };
      headCalls.push(Key);
      raiseFault(faults.get(Key)?.head);
      const head = await store.head(Key);
      if (!head) throw Object.assign(new Error("Not Found"), { name: "S3.NoSuchKeyException" });
      return { ETag: head.etag, VersionId: head.versionId, ContentLength: head.bytes };
    },
    [START_EXECUTION_SYNC]: async (input) => {
      const { StateMachineArn, Input } = input as { StateMachineArn: string; Input: unknown };
      expect(StateMachineArn).toBe(VOICEMAIL_STATE_MACHINE);
      const { key } = (Input as { detail: { object: { key: string } } }).detail.object;
      raiseFault(faults.get(key)?.start);
      childStarts.push(Input);
      const result = await runtime.runEvent(Input);
      childResults.set(key, result);
      if (result.status === "FAILED") throw new TaskFailed(`${result.error?.error}: ${result.error?.cause}`);
      return { Status: "SUCCEEDED", Output: JSON.stringify({ jobId: result.jobId, status: result.status }) };
    },
  };
  const cloud = buildVoicemailBatchDefinition({
    functionArns: LOCAL_BATCH_FUNCTION_ARNS,
    voicemailStateMachineArn: VOICEMAIL_STATE_MACHINE,
    maxConcurrency: 2,
  });
  batch = new LocalStateMachine("voxtrail-voicemail-batch", localMapDefinition(cloud), handlersByArn);
}, 60_000);

afterAll(async () => {
  await runtime.close();
  await rm(workDir, { recursive: true, force: true });
});

/**
 * Puts a manifest of `voicemailKeys` under incoming/batches/, runs the batch definition on the
 * event S3 would send for it (its key form-encoded), and returns each item's result (what the
 * cloud's ResultWriter would collect), by key.
 */
async function runBatch(name: string, voicemailKeys: string[]) {
  const manifest = ["key", ...voicemailKeys].join("\n");
  const stored = await runtime.store.put(`${BATCH_INCOMING_PREFIX}${name}`, manifest, {
    contentType: "text/csv",
  });
  const event = objectCreatedEvent(runtime.store.bucket, stored, new Date());
  const itemResults = new Map<string, Record<string, unknown>>();
  const result = await batch.start(event, {
    retryIntervalMs: 1,
    onEvent: ({ type, state }) => {
      const ends = state?.name === BATCH_STATES.run || state?.name === BATCH_STATES.failed;
      if (type === "StateExited" && ends && state?.output) {
        const output = state.output as Record<string, unknown>;
        itemResults.set(String(output.key), output);
      }
    },
  });
  return { result, items: itemResults };
}

/** The voicemail execution's output, as the `.sync` task hands it back (a JSON string). */
function childOutput(item: Record<string, unknown> | undefined): unknown {
  return JSON.parse(String((item?.execution as { output?: string } | undefined)?.output));
}

describe("the voicemail batch definition, run locally on a manifest", () => {
  it("runs every key through the voicemail workflow; a rerun skips the done and redoes the failed", async () => {
    const audio = await readFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"));
    // A name S3's event encoding changes (space, '+', '%'): Ingest must read exactly this key.
    const good = keys.incomingVoicemail("a b+c%.wav");
    const bad = keys.incomingVoicemail("batch/notes.txt");
    await runtime.store.put(good, audio, { contentType: "audio/wav" });
    await runtime.store.put(bad, "not audio", { contentType: "text/plain" });

    const missing = "incoming/voicemail/batch/missing.wav";
    const first = await runBatch("first list+ü%.csv", [good, bad, missing]);
    expect(first.result.status).toBe("SUCCEEDED");
    // The ItemReader read the manifest under its key, decoded by OpenBatch from the event's encoding.
    expect(manifestReads).toEqual([`${BATCH_INCOMING_PREFIX}first list+ü%.csv`]);
    // The good one ran, the bad one failed in its job, the missing one could not be read.
    expect(first.items.get(good)).toMatchObject({ key: good, execution: { status: "SUCCEEDED" } });
    expect(childOutput(first.items.get(good))).toMatchObject({ status: "SUCCEEDED" });
    expect(first.items.get(bad)).toEqual({ key: bad, status: "FAILED", error: "States.TaskFailed" });
    expect(first.items.get(missing)).toEqual({
      key: missing,
      status: "FAILED",
      error: "S3.NoSuchKeyException",
    });
    // Each child got the event an upload of its object makes, with its version and ETag (the Map
    // runs two at a time, so the children start in either order).
    const goodHead = await runtime.store.head(good);
    const goodStart = childStarts.find(
      (input) => (input as { detail?: { object?: { key?: string } } }).detail?.object?.key === good,
    );
    expect(goodStart).toMatchObject({
      source: "aws.s3",
      "detail-type": "Object Created",
      detail: {
        bucket: { name: runtime.store.bucket },
        object: { key: good, etag: goodHead?.etag, "version-id": goodHead?.versionId },
      },
    });
    // Without `reason`: Ingest takes the row's key as it is, and reads exactly that object.
    expect((goodStart as { detail: object }).detail).not.toHaveProperty("reason");
    expect(childResults.get(good)?.report?.source).toMatchObject({
      key: good,
      versionId: goodHead?.versionId,
    });

    // The same batch again: the done voicemail is a duplicate, the failed one runs again.
    const second = await runBatch("again.csv", [good, bad]);
    expect(childOutput(second.items.get(good))).toMatchObject({ status: "DUPLICATE" });
    expect(second.items.get(bad)).toMatchObject({ key: bad, status: "FAILED" });
    const badJob = (await runtime.store.list("claims/")).filter((key) => key.endsWith("run-02.json"));
    expect(badJob).toHaveLength(1);
  }, 300_000);

  it("retries S3's transient errors and a throttled start under the names Step Functions raises, and fails a refused HEAD after its retries", async () => {
    const audio = await readFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"));
    const slow = keys.incomingVoicemail("batch/slow-down.wav");
    const refused = keys.incomingVoicemail("batch/refused.wav");
    await runtime.store.put(slow, audio, { contentType: "audio/wav" });
    await runtime.store.put(refused, audio, { contentType: "audio/wav" });
    // S3 answers 503 SlowDown once (an unmodeled error: S3.S3Exception), then Step Functions
    // refuses the start once for too many executions; the refused key is always a 403.
    faults.set(slow, { head: ["S3.S3Exception"], start: ["StepFunctions.ExecutionLimitExceeded"] });
    faults.set(refused, { head: Array(10).fill("S3.S3Exception") });

    const run = await runBatch("transient.csv", [slow, refused]);
    expect(run.result.status).toBe("SUCCEEDED");
    expect(run.items.get(slow)).toMatchObject({ key: slow, execution: { status: "SUCCEEDED" } });
    expect(childOutput(run.items.get(slow))).toMatchObject({ status: "SUCCEEDED" });
    expect(headCalls.filter((key) => key === slow)).toHaveLength(2);
    // Retried MaxAttempts (3) times after the first, then caught into the item's failure.
    expect(run.items.get(refused)).toEqual({ key: refused, status: "FAILED", error: "S3.S3Exception" });
    expect(headCalls.filter((key) => key === refused)).toHaveLength(4);
  }, 300_000);
});
