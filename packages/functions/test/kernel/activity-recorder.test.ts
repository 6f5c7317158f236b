import { createHash } from "node:crypto";
import { ActivityRecord, LOCAL_BOUNDARY, readJson } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { scratchDirectory } from "../../../../test/support/temporary-directory";
import {
  ActivityRecorder,
  ActivityRecordNumbersTaken,
  type AttemptScope,
} from "../../src/kernel/activity-recorder";

const jobId = "pr-00000000000000000001";
const step = "SynthesizePrompt-0123456789abcdef";

async function scopeOf(): Promise<AttemptScope> {
  return {
    store: new DirectoryStore({ root: scratchDirectory("voxtrail-recorder-") }),
    jobId,
    stage: "SynthesizePrompt",
    recordAs: step,
    follows: ["PreparePrompts"],
    compute: LOCAL_BOUNDARY,
    inputs: [],
    now: () => new Date("2026-11-30T08:00:00.000Z"),
  };
}

/** `count` attempts of the step, all opened before any of them records: each numbers itself 1. */
function openAtOnce(scope: AttemptScope, count: number): Promise<ActivityRecorder[]> {
  return Promise.all(Array.from({ length: count }, () => ActivityRecorder.open(scope)));
}

describe("ActivityRecorder, attempts of one step that open at once", () => {
  it("take different numbers, and every record survives, linked to the one before it", async () => {
    const scope = await scopeOf();
    const { store } = scope;
    const prepared = keys.lineage(jobId, "PreparePrompts", 1);
    await store.put(prepared, "{}\n", { contentType: "application/json" });
    const [first, second] = await openAtOnce(scope, 2);

    await Promise.all([first?.record("succeeded"), second?.record("failed", new Error("boom"))]);

    const written = [keys.lineage(jobId, step, 1), keys.lineage(jobId, step, 2)];
    expect(await store.list(`${keys.lineagePrefix(jobId)}${step.toLowerCase()}-`)).toEqual(written);
    for (const key of written) expect(await store.versions(key)).toHaveLength(1);
    const [one, two] = await Promise.all(written.map((key) => readJson(store, key, ActivityRecord)));
    expect([one?.attempt, two?.attempt]).toEqual([1, 2]);
    expect(new Set([one?.outcome, two?.outcome])).toEqual(new Set(["succeeded", "failed"]));
    // Attempt 1 follows the step before it; attempt 2, the attempt 1 that took its first number.
    const sha256 = async (key: string) =>
      createHash("sha256")
        .update(await store.getBytes(key))
        .digest("hex");
    expect(one?.previousRecord).toEqual({ key: prepared, sha256: await sha256(prepared) });
    expect(two?.previousRecord).toEqual({ key: written[0], sha256: await sha256(written[0] as string) });
  });

  it("gives up with ActivityRecordNumbersTaken after 20 numbers taken, never overwriting one", async () => {
    const scope = await scopeOf();
    const recorders = await openAtOnce(scope, 21);
    for (const recorder of recorders.slice(0, 20)) await recorder.record("succeeded");

    await expect(recorders[20]?.record("succeeded")).rejects.toThrow(ActivityRecordNumbersTaken);

    const written = await scope.store.list(keys.lineagePrefix(jobId));
    expect(written).toHaveLength(20);
    for (const key of written) expect(await scope.store.versions(key)).toHaveLength(1);
  });
});

describe("ActivityRecorder, an attempt that completes work begun before the attempt it follows", () => {
  it("starts its record no earlier than that attempt's, so the chain stays in start order", async () => {
    const base = await scopeOf();
    const { store } = base;
    await store.put(keys.lineage(jobId, "PreparePrompts", 1), "{}\n", { contentType: "application/json" });
    // The work began at 08:00 (e.g. a transcription job's request); an attempt that started at
    // 08:05 failed; the attempt that completes the work is backdated to 08:00.
    const failed = await ActivityRecorder.open({ ...base, now: () => new Date("2026-11-30T08:05:00.000Z") });
    await failed.record("failed", new Error("throttled"));
    const completing = await ActivityRecorder.open({ ...base, startedAt: "2026-11-30T08:00:00.000Z" });
    await completing.record("succeeded");
    const second = await readJson(store, keys.lineage(jobId, step, 2), ActivityRecord);
    expect(second?.previousRecord?.key).toBe(keys.lineage(jobId, step, 1));
    expect(second?.startedAt).toBe("2026-11-30T08:05:00.000Z");

    // With nothing after the work began, the backdated start stands.
    const alone = await scopeOf();
    await alone.store.put(keys.lineage(jobId, "PreparePrompts", 1), "{}\n", {
      contentType: "application/json",
    });
    const first = await ActivityRecorder.open({ ...alone, startedAt: "2026-11-30T07:00:00.000Z" });
    await first.record("succeeded");
    const only = await readJson(alone.store, keys.lineage(jobId, step, 1), ActivityRecord);
    expect(only?.startedAt).toBe("2026-11-30T07:00:00.000Z");
  });
});
