import { randomUUID } from "node:crypto";
import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { ActivityRecord, type LineageSummary, type ObjectStore, readJson } from "@voxtrail/core";
import type { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactLineageIndex, reindexLineage } from "../src/edge-index/compact-index";
import { latestManifest } from "../src/edge-index/index-manifest";
import { emptyRows, INDEX_TABLES, type IndexRows, jobRows } from "../src/edge-index/index-rows";
import { readTableParquet } from "../src/edge-index/index-tables";
import { pendingJobs } from "../src/edge-index/pending-jobs";
import { listPendingNotes } from "../src/edge-index/pending-notes";
import { vacuumIndex } from "../src/edge-index/vacuum-index";
import { syntheticStore, writeSummaryOf, writeSyntheticJob } from "./synthetic-jobs";

let root: string;
let store: DirectoryStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  ({ root, store, remove } = await syntheticStore("voxtrail-index-notes-", 0));
});

afterEach(() => remove());

/** Every row of the latest generation's tables. */
async function openIndexRows(target: ObjectStore): Promise<IndexRows> {
  const rows = emptyRows();
  for (const { files } of Object.values((await latestManifest(target))?.manifest.days ?? {})) {
    for (const table of INDEX_TABLES) {
      (rows[table] as unknown[]).push(
        ...(await readTableParquet(table, await target.getBytes(files[table]))),
      );
    }
  }
  return rows;
}

/** A finished synthetic job; resolves to its id. */
async function job(index: number, note = true): Promise<string> {
  const { jobId } = await writeSyntheticJob(store, index, Date.UTC(2026, 0, 1), false);
  await writeSummaryOf(store, jobId, { note });
  return jobId;
}

/** `inner`, with every `list` call's prefix recorded (and `onList` run after it answers). */
function listing(
  inner: ObjectStore,
  onList: (prefix: string) => Promise<void> = async () => undefined,
): { store: ObjectStore; prefixes: string[] } {
  const prefixes: string[] = [];
  const store = new Proxy(inner, {
    get(target, property) {
      if (property === "list" || property === "listModified") {
        const inner = Reflect.get(target, property, target) as (prefix: string) => Promise<unknown>;
        return async (prefix: string) => {
          prefixes.push(prefix);
          const answer = await inner.call(target, prefix);
          await onList(prefix);
          return answer;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, prefixes };
}

describe("the notes jobs leave for the lineage index", () => {
  it("lets a reader find the jobs finished since the last compaction without listing every summary", async () => {
    await Promise.all([1, 2, 3].map((index) => job(index)));
    const first = await compactLineageIndex(store);
    expect(first.jobsWritten).toBe(3);
    // Compaction deleted the notes of the jobs it indexed; its manifest says readers may use notes.
    expect(await listPendingNotes(store)).toEqual([]);
    const manifest = (await latestManifest(store))?.manifest;
    expect(manifest?.pendingNotes).toBe(true);

    const noted = await job(4);
    const unnoted = await job(5, false);
    const reader = listing(store);
    const pending = await pendingJobs(reader.store, manifest);
    expect([...pending.rows.keys()]).toEqual([noted]);
    expect(reader.prefixes).toEqual([keys.lineageIndexPending]);
    // Compaction and verify still list the summaries: they need no note.
    const listed = await pendingJobs(store, manifest, { from: "listing" });
    expect([...listed.rows.keys()].sort()).toEqual([noted, unnoted].sort());

    const second = await compactLineageIndex(store);
    expect(second.jobsWritten).toBe(2);
    expect(await listPendingNotes(store)).toEqual([]);
    expect((await pendingJobs(store, (await latestManifest(store))?.manifest)).rows.size).toBe(0);
  });

  it("keeps a note left while a compaction runs, so its job stays pending until the next one", async () => {
    const [jobId] = await Promise.all([job(1), job(2)]);
    let rerun: LineageSummary | undefined;
    // The job ends again just after the compaction listed the notes (and before it read the summaries).
    const racing = listing(store, async (prefix) => {
      if (prefix === keys.lineageIndexPending && !rerun)
        rerun = await writeSummaryOf(store, jobId as string, { note: true });
    });
    await compactLineageIndex(racing.store);
    const notes = await listPendingNotes(store);
    expect(notes.map((note) => note.jobId)).toEqual([jobId]);
    const pending = await pendingJobs(store, (await latestManifest(store))?.manifest);
    expect(pending.rows.get(jobId as string)).toEqual(
      jobRows(jobId as string, (rerun as LineageSummary).records, ""),
    );

    await compactLineageIndex(store);
    expect(await listPendingNotes(store)).toEqual([]);
  });

  it("has compaction read a noted job's summary even where it lists with the time already indexed (S3 lists whole seconds)", async () => {
    const jobId = await job(1);
    await compactLineageIndex(store);
    const indexedAt = (await latestManifest(store))?.manifest.recent[jobId] as string;
    // The job runs again: a later attempt's record, then its summary and note, listed at the same time.
    const first = await readJson(store, keys.lineage(jobId, "Synthesize", 1), ActivityRecord);
    const again = { ...first, activityId: randomUUID(), attempt: 2 };
    await store.put(keys.lineage(jobId, "Synthesize", 2), JSON.stringify(again), {
      contentType: "application/json",
    });
    const rerun = await writeSummaryOf(store, jobId, { note: true });
    const time = new Date(indexedAt);
    await utimes(join(root, ...keys.lineageSummary(jobId).split("/")), time, time);

    expect(await compactLineageIndex(store)).toMatchObject({ generation: 1, jobsWritten: 1 });
    const index = await openIndexRows(store);
    expect(index.records.filter((row) => row.job === jobId)).toHaveLength(rerun.records.length);
  });

  it("is never vacuumed, however old: only the compaction that indexes its job deletes it", async () => {
    await job(1);
    await compactLineageIndex(store);
    const late = await job(2);
    const future = () => new Date(Date.now() + 24 * 60 * 60 * 1000);
    await vacuumIndex(store, { graceMs: 0, now: future });
    expect((await listPendingNotes(store)).map((note) => note.jobId)).toEqual([late]);
  });

  it("is deleted by a reindex that read its job, and ignored under a manifest from before notes", async () => {
    await Promise.all([job(1), job(2)]);
    await reindexLineage(store);
    expect(await listPendingNotes(store)).toEqual([]);

    const latest = await latestManifest(store);
    const { pendingNotes: _notes, ...older } = latest?.manifest ?? {};
    const unnoted = await job(3, false);
    // An index written before jobs left notes: its readers list the summaries, so miss nothing.
    const pending = await pendingJobs(store, older as NonNullable<typeof latest>["manifest"]);
    expect([...pending.rows.keys()]).toEqual([unnoted]);
  });
});
