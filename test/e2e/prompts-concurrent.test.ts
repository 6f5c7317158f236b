import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ActivityRecord, readJson } from "@voxtrail/core";
import type { PromptsJobResult } from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const IDS = ["welcome", "hours", "sales", "support", "billing", "goodbye"];

const workDir = temporaryDirectory("voxtrail-prompts-twice-");

describe("two voxtrail prompts runs of one manifest at once, on one store", () => {
  it("synthesize each prompt once and never write over a lineage record; one run is a duplicate", async () => {
    const manifest = join(workDir(), "menu.csv");
    const storeDir = join(workDir(), "store");
    await writeFile(manifest, `id,text\n${IDS.map((id) => `${id},Press ${id.length}.`).join("\n")}\n`);
    const args = ["prompts", manifest, "--store", storeDir, "--concurrency", "2", "--json"];

    const runs = await Promise.all([runCli(args), runCli(args)]);

    const results = runs.map((run) => JSON.parse(run.stdout) as PromptsJobResult);
    expect(results.map((result) => result.status).sort()).toEqual(["DUPLICATE", "SUCCEEDED"]);
    const [jobId] = new Set(results.map((result) => result.jobId));
    const succeeded = runs[results.findIndex((result) => result.status === "SUCCEEDED")];
    expect(succeeded?.code, succeeded?.stderr).toBe(0);
    expect(results.find((result) => result.status === "DUPLICATE")?.duplicate).toMatchObject({ run: 1 });

    const store = new DirectoryStore({ root: storeDir });
    expect(await store.list(keys.claimPrefix(jobId as string))).toEqual([keys.claim(jobId as string, 1)]);
    const recordKeys = await store.list(keys.lineagePrefix(jobId as string));
    for (const key of recordKeys) expect(await store.versions(key), key).toHaveLength(1);
    const synthesized = new Map<string, number>();
    for (const key of recordKeys.filter((key) => key.includes("/synthesizeprompt-"))) {
      const record = await readJson(store, key, ActivityRecord);
      if (record.outcome === "succeeded")
        synthesized.set(record.stage, (synthesized.get(record.stage) ?? 0) + 1);
    }
    expect([...synthesized.values()]).toEqual(IDS.map(() => 1));
  }, 300_000);
});
