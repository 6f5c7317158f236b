import { randomUUID } from "node:crypto";
import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { ActivityRecord, type ObjectStore, readJson } from "@voxtrail/core";
import type { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactLineageIndex, reindexLineage } from "../src/edge-index/compact-index";
import {
  INDEX_MANIFESTS_PREFIX,
  IndexManifest,
  LINEAGE_INDEX_PREFIX,
  latestManifest,
} from "../src/edge-index/index-manifest";
import { appendRows, emptyRows, INDEX_TABLES, type IndexRows, jobRows } from "../src/edge-index/index-rows";
import { readTableParquet } from "../src/edge-index/index-tables";
import { pendingJobs } from "../src/edge-index/pending-jobs";
import { vacuumIndex } from "../src/edge-index/vacuum-index";
import { readLineage } from "../src/index";
import { syntheticStore, writeSummaryOf, writeSyntheticJob } from "./synthetic-jobs";

let root: string;
let store: DirectoryStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  ({ root, store, remove } = await syntheticStore("voxtrail-index-compaction-", 0));
});

afterEach(() => remove());

const HOUR = 60 * 60 * 1000;

/** Job `index`'s first attempt starts on one of three days, so a generation touches some days, keeps others. */
const startOf = (index: number) => Date.UTC(2026, 0, 1 + (index % 3));

/** A finished synthetic job (records, then its summary); resolves to its id. */
async function writeJob(target: ObjectStore, index: number): Promise<string> {
  const { jobId } = await writeSyntheticJob(target, index, startOf(index), false);
  await writeSummaryOf(target, jobId);
  return jobId;
}

/** Jobs `from` to `to`, written at once. */
function writeJobs(target: ObjectStore, from: number, to: number): Promise<string[]> {
  return Promise.all(Array.from({ length: to - from + 1 }, (_, offset) => writeJob(target, from + offset)));
}

/** A rerun of `jobId`: a second Synthesize attempt's record, then the job's summary written again. */
async function rerun(target: ObjectStore, jobId: string): Promise<void> {
  const first = await readJson(target, keys.lineage(jobId, "Synthesize", 1), ActivityRecord);
  const later = new Date(Date.parse(first.startedAt) + HOUR).toISOString();
  const again: ActivityRecord = {
    ...first,
    activityId: randomUUID(),
    attempt: 2,
    startedAt: later,
    endedAt: later,
  };
  await target.put(keys.lineage(jobId, "Synthesize", 2), `${JSON.stringify(again, null, 2)}\n`, {
    contentType: "application/json",
  });
  await writeSummaryOf(target, jobId);
}

/** `inner`, with some of its methods replaced (the rest bound to it: the directory store has private fields). */
function withHooks(inner: ObjectStore, hooks: Partial<ObjectStore>): ObjectStore {
  return new Proxy(inner, {
    get(target, property) {
      const hook = (hooks as Record<PropertyKey, unknown>)[property];
      if (hook !== undefined) return hook;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const isTableFile = (key: string) =>
  key.startsWith(LINEAGE_INDEX_PREFIX) && !key.startsWith(INDEX_MANIFESTS_PREFIX);

/** Every file a manifest names: its table files, and its lookup filters. */
const filesOf = (manifest: IndexManifest) => [
  ...Object.values(manifest.days).flatMap(({ files }) => Object.values(files) as string[]),
  ...(manifest.filters ? [manifest.filters.key] : []),
];

const parseManifest = (body: string | Uint8Array) =>
  IndexManifest.parse(JSON.parse(typeof body === "string" ? body : Buffer.from(body).toString("utf8")));

/**
 * The index as a reader sees it: the latest manifest, every day's file of every table, read back.
 * Each day's files hold only that day's jobs, as many as the manifest says.
 */
async function readIndex(
  target: ObjectStore,
): Promise<{ key: string; manifest: IndexManifest; rows: IndexRows }> {
  const latest = await latestManifest(target);
  if (!latest) throw new Error("the store has no lineage index");
  const rows = emptyRows();
  for (const [day, { jobs, files }] of Object.entries(latest.manifest.days)) {
    const dayRows = emptyRows();
    for (const table of INDEX_TABLES) {
      (dayRows[table] as unknown[]) = await readTableParquet(table, await target.getBytes(files[table]));
    }
    expect(dayRows.jobs.map((row) => row.day)).toEqual(Array<string>(jobs).fill(day));
    appendRows(rows, dayRows);
  }
  return { ...latest, rows };
}

/** The rows of `jobIds`, computed from the activity records themselves and the summaries' listed times. */
async function expectedRows(target: DirectoryStore, jobIds: readonly string[]): Promise<IndexRows> {
  const { activities } = await readLineage(target, { from: "records" });
  const modified = new Map(
    (await target.listModified(keys.lineageSummaries)).map(({ key, lastModified }) => [
      key.slice(keys.lineageSummaries.length, -".json".length),
      lastModified.toISOString(),
    ]),
  );
  const rows = emptyRows();
  for (const jobId of jobIds) {
    const own = activities.filter((entry) => entry.record.jobId === jobId);
    expect(own.length).toBeGreaterThan(0);
    appendRows(rows, jobRows(jobId, own, modified.get(jobId) ?? ""));
  }
  return rows;
}

/** Rows as sorted lines, one per row with its table: equal lists are equal multisets of rows. */
function canonical(rows: IndexRows, keep: (job: string) => boolean = () => true): string[] {
  return INDEX_TABLES.flatMap((table) =>
    (rows[table] as Array<{ job: string }>)
      .filter((row) => keep(row.job))
      .map((row) => `${table} ${JSON.stringify(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : 1)))}`),
  ).sort();
}

/** The index holds exactly `jobIds`, each once, with exactly the rows their records give. */
async function expectIndexHolds(target: DirectoryStore, jobIds: readonly string[]) {
  const index = await readIndex(target);
  expect(index.rows.jobs.map((row) => row.job).sort()).toEqual([...jobIds].sort());
  expect(index.manifest.jobs).toBe(jobIds.length);
  expect(canonical(index.rows)).toEqual(canonical(await expectedRows(target, jobIds)));
  return index;
}

const manifestKeys = () => store.list(INDEX_MANIFESTS_PREFIX);

/** Whether nothing of `key` is left, not even a kept version. */
async function gone(key: string): Promise<boolean> {
  return (await store.head(key)) === undefined && (await store.versions(key)).length === 0;
}

describe("compactLineageIndex: nothing lost, nothing counted twice", () => {
  it("indexes only the jobs finished since the last compaction, with the rows a reindex gives, and writes no generation when nothing is new", async () => {
    const ids = await writeJobs(store, 1, 20);
    const first = await compactLineageIndex(store);
    expect(first).toMatchObject({ generation: 0, jobsWritten: 20, jobs: 20, unreadableSummaries: [] });

    ids.push(...(await writeJobs(store, 21, 30)));
    const second = await compactLineageIndex(store);
    expect(second).toMatchObject({ generation: 1, jobsWritten: 10, jobs: 30 });
    const compacted = await expectIndexHolds(store, ids);
    expect(Object.keys(compacted.manifest.days).sort()).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);

    const manifests = await manifestKeys();
    const again = await compactLineageIndex(store);
    expect(again).toMatchObject({ manifestKey: second.manifestKey, generation: 1, jobsWritten: 0, jobs: 30 });
    expect(await manifestKeys()).toEqual(manifests);

    const rebuilt = await reindexLineage(store);
    expect(rebuilt).toMatchObject({ generation: 2, jobsWritten: 30, jobs: 30 });
    expect(canonical((await readIndex(store)).rows)).toEqual(canonical(compacted.rows));
  });

  it("replaces a rerun job's rows with its new summary's, leaving the other jobs' rows as they were", async () => {
    const ids = await writeJobs(store, 1, 4);
    await compactLineageIndex(store);
    const rerunJob = ids[1] as string;
    const isRerun = (job: string) => job === rerunJob;
    const isOther = (job: string) => job !== rerunJob;
    const before = await readIndex(store);

    await new Promise((resolve) => setTimeout(resolve, 5)); // A later time for the summary than it was listed with.
    await rerun(store, rerunJob);
    expect(await compactLineageIndex(store)).toMatchObject({ generation: 1, jobsWritten: 1, jobs: 4 });

    const after = await expectIndexHolds(store, ids);
    expect(after.rows.records.filter((row) => row.job === rerunJob)).toHaveLength(6);
    expect(after.rows.jobs.find((row) => row.job === rerunJob)?.records).toBe(6);
    expect(canonical(after.rows, isRerun)).not.toEqual(canonical(before.rows, isRerun));
    expect(canonical(after.rows, isOther)).toEqual(canonical(before.rows, isOther));
  });

  it("four compactions at once beside finishing jobs: one manifest per generation, every job once, the losers' files deleted", async () => {
    const ids = await writeJobs(store, 1, 6);
    const base = await compactLineageIndex(store);
    const manifests = [parseManifest(await store.getBytes(base.manifestKey as string))];
    ids.push(...(await writeJobs(store, 7, 9))); // Pending for all four (one per day): each reaches its manifest.

    const created: string[] = [];
    const tableFilesPut: string[] = [];
    // The first attempt of each of the four waits for the others at its manifest: all four start from one base.
    let arrived = 0;
    let allArrived: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const racing = withHooks(store, {
      put: (key, body, options) => {
        if (isTableFile(key)) tableFilesPut.push(key);
        return store.put(key, body, options);
      },
      putIfAbsent: async (key, body, options) => {
        if (key.startsWith(INDEX_MANIFESTS_PREFIX) && arrived < 4) {
          if (++arrived === 4) allArrived();
          await barrier;
        }
        const stored = await store.putIfAbsent(key, body, options);
        if (stored) {
          created.push(key);
          manifests.push(parseManifest(body));
        }
        return stored;
      },
    });

    const finishing = async () => {
      const finished: string[] = [];
      for (let index = 10; index <= 13; index++) finished.push(await writeJob(store, index));
      return finished;
    };
    const [updates, finished] = await Promise.all([
      Promise.all([1, 2, 3, 4].map(() => compactLineageIndex(racing))),
      finishing(),
    ]);
    ids.push(...finished);
    const last = await compactLineageIndex(store);
    if (last.jobsWritten > 0) manifests.push((await readIndex(store)).manifest);

    const writers = updates.filter((update) => update.jobsWritten > 0);
    expect(new Set(writers.map((update) => update.generation)).size).toBe(writers.length);
    expect(writers.map((update) => update.manifestKey).sort()).toEqual([...created].sort());
    expect(new Set(created).size).toBe(created.length);
    const generations = manifests.map((manifest) => manifest.generation).sort((a, b) => a - b);
    expect(generations).toEqual(generations.map((_, index) => index));
    const everCreated = [base.manifestKey, ...created, ...(last.jobsWritten > 0 ? [last.manifestKey] : [])];
    for (const key of await manifestKeys()) {
      expect(everCreated).toContain(key);
      const manifest = parseManifest(await store.getBytes(key));
      expect(key).toBe(`${INDEX_MANIFESTS_PREFIX}g${String(manifest.generation).padStart(12, "0")}.json`);
    }

    const named = new Set(manifests.flatMap(filesOf));
    const lost = tableFilesPut.filter((key) => !named.has(key));
    expect(lost.length).toBeGreaterThanOrEqual(3 * 3 * INDEX_TABLES.length); // Three lost the first round.
    for (const key of lost) expect(await gone(key), key).toBe(true);
    // Every table file left is one a manifest named: none younger than the grace is left unnamed.
    const left = (await store.list(LINEAGE_INDEX_PREFIX)).filter(isTableFile);
    expect(left.sort()).toEqual([...named].sort());

    await expectIndexHolds(store, ids);
  });

  it("a compaction stalled at its manifest while four others finish does not recreate a generation vacuumed meanwhile", async () => {
    const ids = await writeJobs(store, 1, 2);
    await compactLineageIndex(store);
    ids.push(await writeJob(store, 3));

    let atManifest: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      atManifest = resolve;
    });
    let resume: () => void = () => undefined;
    const resumed = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let stalled = false;
    const slow = withHooks(store, {
      putIfAbsent: async (key, body, options) => {
        if (!stalled) {
          stalled = true;
          atManifest();
          await resumed;
        }
        return store.putIfAbsent(key, body, options);
      },
    });
    const stalling = compactLineageIndex(slow);
    await reached; // It holds generation 1's files, job 3 in them.
    for (let index = 4; index <= 7; index++) {
      ids.push(await writeJob(store, index));
      await compactLineageIndex(store); // Generations 1 to 4, each vacuuming.
    }
    resume();
    const update = await stalling;

    const latest = await readIndex(store);
    expect(latest.manifest.generation).toBe(4);
    expect(update.manifestKey).toBe(latest.key);
    expect(update.generation).toBe(4);
    for (const key of await manifestKeys()) {
      const { generation, writtenAt } = parseManifest(await store.getBytes(key));
      if (generation < 4) expect(writtenAt <= latest.manifest.writtenAt, key).toBe(true);
    }
    await expectIndexHolds(store, ids);
  });

  it("a compaction that dies after writing some table files leaves the index as it was; the next brings every job in once; vacuum deletes the orphans", async () => {
    const ids = await writeJobs(store, 1, 6);
    await compactLineageIndex(store);
    ids.push(...(await writeJobs(store, 7, 9)));
    await compactLineageIndex(store);
    const before = await expectIndexHolds(store, ids);

    const pending = await writeJobs(store, 10, 12); // One per day: twelve table files.
    // The process dies at its sixth table file: five are written, nothing after happens (not even cleanup).
    const written: string[] = [];
    let dead = false;
    const dying = new Proxy(store, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          if (dead) throw new Error("the process is gone");
          const key = args[0] as string;
          if (property === "put" && isTableFile(key)) {
            if (written.length === 5) {
              dead = true;
              throw new Error("the process died");
            }
            written.push(key);
          }
          return value.apply(target, args);
        };
      },
    }) as ObjectStore;
    await expect(compactLineageIndex(dying)).rejects.toThrow("the process died");
    expect(written).toHaveLength(5);
    for (const key of written) expect(await store.head(key), key).toBeDefined();

    const unchanged = await expectIndexHolds(store, ids);
    expect(unchanged.key).toBe(before.key);
    expect(canonical(unchanged.rows)).toEqual(canonical(before.rows));

    ids.push(...pending);
    expect(await compactLineageIndex(store)).toMatchObject({ generation: 2, jobsWritten: 3, jobs: 12 });
    await expectIndexHolds(store, ids);
    for (const key of written) expect(await store.head(key), key).toBeDefined(); // Younger than the grace.
    ids.push(await writeJob(store, 13));
    await compactLineageIndex(store);

    const now = () => new Date(Date.now() + 2 * HOUR);
    const deleted = await vacuumIndex(store, { now });
    for (const key of written) expect(await gone(key), key).toBe(true);
    const kept = (await manifestKeys()).map((key) => key.slice(INDEX_MANIFESTS_PREFIX.length));
    expect(kept).toEqual(["g000000000001.json", "g000000000002.json", "g000000000003.json"]);
    const named = new Set<string>();
    for (const key of await manifestKeys())
      for (const file of filesOf(parseManifest(await store.getBytes(key)))) named.add(file);
    const left = (await store.list(LINEAGE_INDEX_PREFIX)).filter(isTableFile);
    expect(left.sort()).toEqual([...named].sort());
    expect(deleted).toBeGreaterThan(written.length);
    await expectIndexHolds(store, ids);
    expect(await vacuumIndex(store, { now })).toBe(0);
  });

  it("a compaction whose table write fails deletes the files it wrote at once, and the next one brings the jobs in", async () => {
    const ids = await writeJobs(store, 1, 2);
    await compactLineageIndex(store);
    const before = await readIndex(store);
    ids.push(...(await writeJobs(store, 3, 4)));

    const written: string[] = [];
    const failing = withHooks(store, {
      put: async (key, body, options) => {
        if (isTableFile(key) && written.length === 2) throw new Error("the store refused a write");
        if (isTableFile(key)) written.push(key);
        return store.put(key, body, options);
      },
    });
    await expect(compactLineageIndex(failing)).rejects.toThrow("the store refused a write");
    expect(written).toHaveLength(2);
    for (const key of written) expect(await gone(key), key).toBe(true);
    expect((await readIndex(store)).key).toBe(before.key);

    expect(await compactLineageIndex(store)).toMatchObject({ generation: 1, jobsWritten: 2, jobs: 4 });
    await expectIndexHolds(store, ids);
  });

  it("picks up, at the next compaction, summaries written while one ran, even one listed with a time before the watermark", async () => {
    const ids = await writeJobs(store, 1, 3);
    await compactLineageIndex(store);
    ids.push(await writeJob(store, 4));

    // Between the listing and the manifest, two jobs finish; one summary's time is ten minutes
    // before the newest listed (a write that began before the listing, or a writer's clock behind).
    const during: string[] = [];
    const writing = withHooks(store, {
      putIfAbsent: async (key, body, options) => {
        if (during.length === 0) {
          during.push(await writeJob(store, 5), await writeJob(store, 6));
          const listed = await store.listModified(keys.lineageSummaries);
          const newest = Math.max(
            ...listed
              .filter(({ key }) => !during.some((jobId) => key === keys.lineageSummary(jobId)))
              .map(({ lastModified }) => lastModified.getTime()),
          );
          const backdated = new Date(newest - 10 * 60 * 1000);
          await utimes(
            join(root, ...keys.lineageSummary(during[0] as string).split("/")),
            backdated,
            backdated,
          );
        }
        return store.putIfAbsent(key, body, options);
      },
    });
    expect(await compactLineageIndex(writing)).toMatchObject({ generation: 1, jobsWritten: 1, jobs: 4 });
    const between = await expectIndexHolds(store, ids);

    // Without the margin the backdated summary would be missed: it is the margin that saves it.
    const withoutMargin = await pendingJobs(store, between.manifest, { from: "listing", marginMs: 0 });
    expect([...withoutMargin.rows.keys()]).toEqual([during[1]]);

    ids.push(...during);
    expect(await compactLineageIndex(store)).toMatchObject({ generation: 2, jobsWritten: 2, jobs: 6 });
    await expectIndexHolds(store, ids);
  });

  it("reports a summary that is not JSON, compacts the rest, and indexes that job once its summary is whole again", async () => {
    const ids = await writeJobs(store, 1, 4);
    const broken = ids[2] as string;
    await store.put(keys.lineageSummary(broken), '{"schemaVersion": 1, "jobId": ', {
      contentType: "application/json",
    });

    const update = await compactLineageIndex(store);
    expect(update).toMatchObject({ generation: 0, jobsWritten: 3, jobs: 3 });
    expect(update.unreadableSummaries).toEqual([keys.lineageSummary(broken)]);
    await expectIndexHolds(
      store,
      ids.filter((id) => id !== broken),
    );

    await writeSummaryOf(store, broken);
    expect(await compactLineageIndex(store)).toMatchObject({
      generation: 1,
      jobsWritten: 1,
      jobs: 4,
      unreadableSummaries: [],
    });
    await expectIndexHolds(store, ids);
  });
});
