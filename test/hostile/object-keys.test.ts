import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStageHandlers } from "@voxtrail/functions";
import {
  BUNDLED_VOICEMAILS_DIR,
  LOCAL_FUNCTION_ARNS,
  LocalRuntime,
  LocalStateMachine,
  matchesPattern,
  objectCreatedEvent,
} from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { buildVoicemailDefinition, keys, STAGE_FUNCTIONS, voicemailRulePattern } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";
import { mulawWav, tone } from "../../scripts/make-bad-fixtures";
import { SIMULATED_TRANSCRIBER } from "../support/simulated-transcriber";

/**
 * Keys an S3 event may carry (S3 accepts any UTF-8 key) that no store may turn into a path: each
 * starts the workflow (the rule's prefix matches) and must fail in Ingest with `InvalidKey`, whose
 * message names the rule broken, never the key.
 */
const HOSTILE_KEYS: Array<[string, string, string]> = [
  [
    "'..' segments climbing out of the store",
    "incoming/voicemail/../../../outside.wav",
    "'.' or '..' segments",
  ],
  ["a '.' segment", "incoming/voicemail/./call.wav", "'.' or '..' segments"],
  ["a backslash", "incoming/voicemail/..\\..\\..\\outside.wav", "backslash"],
  ["a NUL byte", "incoming/voicemail/call\u0000.wav", "control characters"],
  ["an empty segment", "incoming/voicemail//call.wav", "empty segments"],
];

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-hostile-keys-"));
  // A decodable voicemail where the '..' key would land, were it followed as a path.
  await writeFile(join(workDir, "outside.wav"), mulawWav(tone(300)));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("an S3 event whose key no store may map to a path", () => {
  it.each(HOSTILE_KEYS)("fails Ingest with InvalidKey for %s, reading nothing", async (_, key, rule) => {
    const store = new DirectoryStore({ root: await mkdtemp(join(workDir, "store-")) });
    const { deps, published } = await testDependencies({ store });
    const handlers = createStageHandlers(deps);
    const machine = new LocalStateMachine(
      "voxtrail-hostile-keys",
      buildVoicemailDefinition({ functionArns: LOCAL_FUNCTION_ARNS }),
      Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [LOCAL_FUNCTION_ARNS[fn], handlers[fn]])),
    );
    const event = objectCreatedEvent(
      deps.store.bucket,
      { key, bytes: 4858, uri: "", etag: "e" } as never,
      new Date(),
    );
    expect(matchesPattern(event, voicemailRulePattern(deps.store.bucket))).toBe(true);

    const result = await machine.start(event, { retryIntervalMs: 1 });

    expect(result).toMatchObject({ status: "FAILED", error: "IngestFailed" });
    const cause = result.status === "FAILED" ? result.cause : "";
    expect(cause).toMatch(/^InvalidKey: object key must /);
    expect(cause).toContain(rule);
    expect(cause).not.toContain("outside");
    expect(cause).not.toContain("call");
    expect(published.map((event) => event.detail)).toEqual([
      expect.objectContaining({ outcome: "failed", failedStage: "Ingest", errorName: "InvalidKey" }),
    ]);
    const jobId = published[0]?.detail.jobId as string;
    const report = JSON.parse((await deps.store.getBytes(keys.report(jobId))).toString("utf8"));
    expect(report).toMatchObject({
      outcome: "failed",
      failure: { stage: "Ingest", error: { name: "InvalidKey" } },
    });
    expect(await deps.store.head(keys.artifact(jobId, "normalized.wav"))).toBeUndefined();
  });
});

/**
 * Keys S3 accepts and the pipeline must handle: S3 writes them form-encoded in its events
 * (`a b+c` as `a+b%2Bc`), as `objectCreatedEvent` does, and the handlers decode them back.
 */
describe("a voicemail whose name needs encoding in an S3 event", () => {
  it("runs end to end under its own key: 'a b+c%(1).wav'", async () => {
    const name = "a b+c%(1).wav";
    const path = join(workDir, name);
    await copyFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"), path);
    // Transcription simulated: the subject is the key, not what was heard.
    const runtime = await LocalRuntime.start({
      storeDir: join(workDir, "odd-names"),
      retryIntervalMs: 1,
      providers: SIMULATED_TRANSCRIBER,
    });
    try {
      const [result] = await runtime.run([{ name, path }], { concurrency: 1 });
      const key = keys.incomingVoicemail(name);
      expect(result).toMatchObject({ status: "SUCCEEDED", key });
      expect(result?.report).toMatchObject({ outcome: "succeeded", source: { key } });
      // The event the upload made carried the key as S3 writes it, and the same job answers it.
      const stored = await runtime.store.head(key);
      const event = objectCreatedEvent(runtime.store.bucket, stored as never, new Date());
      expect(event.detail.object.key).toBe("incoming/voicemail/a+b%2Bc%25%281%29.wav");
      expect(await runtime.runEvent(event)).toMatchObject({
        status: "DUPLICATE",
        key,
        jobId: result?.jobId,
        duplicate: { reason: "completed" },
      });
    } finally {
      await runtime.close();
    }
  });

  it.each([
    ["a space", "incoming/voicemail/red flower.wav"],
    ["a '+'", "incoming/voicemail/c++.wav"],
    ["a '%' and what looks like an escape", "incoming/voicemail/100% %2B.wav"],
    ["unicode", "incoming/voicemail/café 日本語 🎙.wav"],
    ["parentheses", "incoming/voicemail/call (2).wav"],
  ])("Ingest reads the object whose key has %s", async (_, key) => {
    const store = new DirectoryStore({ root: await mkdtemp(join(workDir, "store-")) });
    const { deps } = await testDependencies({ store });
    await store.put(key, mulawWav(tone(300)), { contentType: "audio/wav" });
    const stored = await store.head(key);
    const event = objectCreatedEvent(store.bucket, stored as never, new Date());
    expect(event.detail.object.key).not.toContain(" ");
    const job = await createStageHandlers(deps).ingest(
      { event, execution: { id: "arn:aws:states:local:000000000000:execution:k:1", startTime: event.time } },
      context,
    );
    expect(job).toMatchObject({ source: { key, uri: store.uri(key) } });
  });
});
