import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ActivityRecord, type ObjectStore, readJson } from "@voxtrail/core";
import { keys, promptKeys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../../../test/support/temporary-directory";
import { objectCreatedEvent } from "../src/events/object-created-event";
import type { PromptsProgress } from "../src/prompts-progress";
import { PromptsRuntime } from "../src/prompts-runtime";

const workDir = temporaryDirectory("voxtrail-prompts-runtime-");

describe("PromptsRuntime", () => {
  it("records a prompt the endpoint rejects as failed, goes on, and a rerun redoes only the failures", async () => {
    const storeDir = join(workDir(), "store");
    const manifest = join(workDir(), "menu.jsonl");
    const ids = ["one", "two", "three", "four"];
    await writeFile(manifest, ids.map((id) => `${JSON.stringify({ id, text: `Option ${id}.` })}\n`).join(""));

    // The endpoint answers the first two requests as SageMaker does a container's 422: rejected input,
    // which is not retried. Concurrency 1 makes "the first two" the first two rows.
    const failing = await PromptsRuntime.start({
      storeDir,
      concurrency: 1,
      endpoint: { faults: { modelError: { originalStatus: 422, requests: 2 } } },
    });
    const progress: PromptsProgress[] = [];
    const first = await failing
      .run(manifest, { onProgress: (event) => progress.push(event) })
      .finally(() => failing.close());
    expect(first.status).toBe("SUCCEEDED");
    expect(first.report?.prompts.map((p) => [p.id, p.status, p.error?.name])).toEqual([
      ["one", "failed", "SynthesisRejected"],
      ["two", "failed", "SynthesisRejected"],
      ["three", "succeeded", undefined],
      ["four", "succeeded", undefined],
    ]);
    expect(progress[0]).toEqual({ type: "prepared", jobId: first.jobId, rows: 4, badRows: 0 });

    const lineage = await failing.store.list(`lineage/${first.jobId}/`);
    const audioBefore = await failing.store.head(promptKeys.audio(first.jobId, "three"));

    const healthy = await PromptsRuntime.start({ storeDir, concurrency: 2 });
    const second = await healthy.run(manifest).finally(() => healthy.close());
    expect(second.jobId).toBe(first.jobId);
    expect(second.report?.totals).toMatchObject({ rows: 4, succeeded: 4, failed: 0 });
    // New activity records for the two redone prompts and the new report; none for three and four.
    const added = (await healthy.store.list(`lineage/${first.jobId}/`)).filter(
      (key) => !lineage.includes(key),
    );
    expect(added).toHaveLength(3);
    expect(added.filter((key) => key.includes("/synthesizeprompt-"))).toHaveLength(2);
    expect(added.filter((key) => key.includes("/writepromptsreport-"))).toHaveLength(1);
    expect(await healthy.store.head(promptKeys.audio(first.jobId, "three"))).toEqual(audioBefore);
    // Each run claimed the job; a run once every prompt succeeded is a duplicate and writes nothing.
    expect(await healthy.store.list(keys.claimPrefix(first.jobId))).toEqual([
      keys.claim(first.jobId, 1),
      keys.claim(first.jobId, 2),
    ]);
    const done = await PromptsRuntime.start({ storeDir, concurrency: 2 });
    const before = await done.store.list("");
    const third = await done.run(manifest).finally(() => done.close());
    expect(third).toMatchObject({ status: "DUPLICATE", duplicate: { reason: "completed", run: 2 } });
    expect(third.report).toEqual(second.report);
    expect(await done.store.list("")).toEqual(before);
  }, 120_000);

  it("runs two executions of one manifest at once as one job: each prompt synthesized once, one execution a duplicate", async () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const manifest = join(workDir(), "twice.csv");
    await writeFile(manifest, `id,text\n${ids.map((id) => `${id},Option ${id}.`).join("\n")}\n`);
    const runtime = await PromptsRuntime.start({ storeDir: join(workDir(), "store-twice"), concurrency: 2 });
    try {
      const { store } = runtime;
      const stored = await store.put(promptKeys.incomingManifest("twice.csv"), await readFile(manifest), {
        contentType: "text/csv",
      });
      // EventBridge delivers at least once: the same event twice, at the same time.
      const event = objectCreatedEvent(store.bucket, stored, new Date());

      const results = await Promise.all([runtime.runEvent(event), runtime.runEvent(event)]);

      expect(results.map((result) => result.status).sort()).toEqual(["DUPLICATE", "SUCCEEDED"]);
      const [jobId] = new Set(results.map((result) => result.jobId));
      const duplicate = results.find((result) => result.status === "DUPLICATE");
      expect(duplicate?.duplicate).toMatchObject({ reason: "in-progress", run: 1 });
      expect(await store.list(keys.claimPrefix(jobId as string))).toEqual([keys.claim(jobId as string, 1)]);
      expect(await synthesizedPerPrompt(store, jobId as string)).toEqual(ids.map(() => 1));
    } finally {
      await runtime.close();
    }
  }, 120_000);

  it("fails the job with a named error when the manifest is not CSV or JSON Lines", async () => {
    const manifest = join(workDir(), "menu.txt");
    await writeFile(manifest, "hello\n");
    const runtime = await PromptsRuntime.start({ storeDir: join(workDir(), "store-2") });
    const result = await runtime.run(manifest).finally(() => runtime.close());
    expect(result.status).toBe("FAILED");
    expect(result.error?.error).toBe("PromptManifestUnreadable");
    expect(result.report).toBeUndefined();
  }, 60_000);
});

/**
 * How many succeeded SynthesizePrompt attempts each prompt of the job has on record, after
 * checking that no activity record was ever written over (each key has one version).
 */
async function synthesizedPerPrompt(store: ObjectStore, jobId: string): Promise<number[]> {
  const recordKeys = await store.list(keys.lineagePrefix(jobId));
  for (const key of recordKeys) expect(await store.versions(key), key).toHaveLength(1);
  const succeeded = new Map<string, number>();
  for (const key of recordKeys.filter((key) => key.includes("/synthesizeprompt-"))) {
    const record = await readJson(store, key, ActivityRecord);
    if (record.outcome === "succeeded") succeeded.set(record.stage, (succeeded.get(record.stage) ?? 0) + 1);
  }
  return [...succeeded.values()];
}
