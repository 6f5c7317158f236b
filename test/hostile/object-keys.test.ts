import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStageHandlers } from "@voxtrail/functions";
import { LOCAL_FUNCTION_ARNS, LocalStateMachine, matchesPattern, objectCreatedEvent } from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { buildVoicemailDefinition, keys, STAGE_FUNCTIONS, voicemailRulePattern } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDependencies } from "../../packages/functions/test/stage-dependencies";
import { mulawWav, tone } from "../../scripts/make-bad-fixtures";

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
