import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryStore } from "@voxtrail/storage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ATHENA_SYMLINKS_PREFIX,
  athenaSymlinkKey,
  ofAthenaSymlinkKey,
  writeAthenaSymlinks,
} from "../src/edge-index/athena-symlinks";
import { type IndexManifest, tableFileKey } from "../src/edge-index/index-manifest";
import { INDEX_TABLES, type IndexTable } from "../src/edge-index/index-rows";

let root: string;
let store: DirectoryStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "voxtrail-athena-symlinks-"));
  store = new DirectoryStore({ root, bucket: "voxtrail-test" });
});

afterEach(() => rm(root, { recursive: true, force: true }));

/** A generation's files for `days`, written (their bytes do not matter here), and its manifest. */
async function generation(generation: number, days: string[], base?: IndexManifest): Promise<IndexManifest> {
  const manifest: IndexManifest = {
    schemaVersion: 1,
    generation,
    writtenAt: new Date().toISOString(),
    watermark: null,
    recent: {},
    jobs: 0,
    days: { ...base?.days },
  };
  for (const day of days) {
    const files = {} as Record<IndexTable, string>;
    for (const table of INDEX_TABLES) {
      files[table] = tableFileKey(table, day, generation);
      await store.put(files[table], `${table} ${day} g${generation}`, {
        contentType: "application/octet-stream",
      });
    }
    manifest.days[day] = { jobs: 1, files };
  }
  manifest.jobs = Object.keys(manifest.days).length;
  return manifest;
}

/** Every symlink in the store, as `{ key: text }`. */
async function symlinks(): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const key of await store.list(ATHENA_SYMLINKS_PREFIX))
    found[key] = (await store.getBytes(key)).toString("utf8");
  return found;
}

/** What the symlinks must say for `manifest`: each day's file of each table, by URI. */
function expected(manifest: IndexManifest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(manifest.days).flatMap(([day, { files }]) =>
      INDEX_TABLES.map((table) => [athenaSymlinkKey(table, day), store.uri(files[table])]),
    ),
  );
}

describe("the index's symlink files for Athena", () => {
  it("names each table's folder per day, and reads a key back", () => {
    expect(athenaSymlinkKey("edges", "2026-12-02")).toBe("lineage-athena/edges/day=2026-12-02/manifest");
    expect(ofAthenaSymlinkKey("lineage-athena/records/day=2026-01-03/manifest")).toEqual({
      table: "records",
      day: "2026-01-03",
    });
    for (const other of [
      "lineage-athena/records/day=2026-01-03/other",
      "lineage-athena/nope/day=2026-01-03/manifest",
      "lineage-index/edges/day=2026-01-03/manifest",
    ])
      expect(ofAthenaSymlinkKey(other), other).toBeUndefined();
    // Outside the index's own prefix: vacuumIndex deletes what no manifest names there.
    expect(ATHENA_SYMLINKS_PREFIX.startsWith("lineage-index/")).toBe(false);
  });

  it("writes one symlink per table and day, naming the live file's URI and nothing else", async () => {
    const manifest = await generation(0, ["2026-01-01", "2026-01-02"]);
    expect(await writeAthenaSymlinks(store, manifest)).toEqual({ written: 8, unchanged: 0, deleted: 0 });
    const written = await symlinks();
    expect(written).toEqual(expected(manifest));
    expect(written[athenaSymlinkKey("jobs", "2026-01-02")]).toMatch(
      /^file:\/\/.*\/lineage-index\/jobs\/day=2026-01-02\/g000000000000-[0-9a-f]{8}\.parquet$/,
    );
    // Each names an object that is there.
    for (const [key, { files }] of Object.entries(manifest.days))
      for (const table of INDEX_TABLES)
        expect(await store.head(files[table]), `${key} ${table}`).toBeDefined();
  });

  it("rewrites only the days whose files changed, keeping no earlier version of a symlink", async () => {
    const first = await generation(0, ["2026-01-01", "2026-01-02"]);
    await writeAthenaSymlinks(store, first);
    const second = await generation(1, ["2026-01-02", "2026-01-03"], first);
    expect(await writeAthenaSymlinks(store, second)).toEqual({ written: 8, unchanged: 4, deleted: 0 });
    expect(await symlinks()).toEqual(expected(second));
    for (const table of INDEX_TABLES) {
      expect(await store.versions(athenaSymlinkKey(table, "2026-01-02"))).toHaveLength(1);
      // The unchanged day's symlink was not written again.
      expect(await store.versions(athenaSymlinkKey(table, "2026-01-01"))).toHaveLength(1);
    }
    // Nothing to do the second time round.
    expect(await writeAthenaSymlinks(store, second)).toEqual({ written: 0, unchanged: 12, deleted: 0 });
  });

  it("removes every version of the symlinks of a day the manifest no longer has, a raced one too", async () => {
    const first = await generation(0, ["2026-01-01", "2026-01-02"]);
    await writeAthenaSymlinks(store, first);
    // A version a raced write left behind, under the current one.
    const raced = athenaSymlinkKey("edges", "2026-01-01");
    await store.put(raced, (await store.getBytes(raced)).toString("utf8"), { contentType: "text/plain" });
    expect(await store.versions(raced)).toHaveLength(2);
    // A reindex: one new generation that drops everything before it.
    const rebuilt = await generation(1, ["2026-01-02"]);
    expect(await writeAthenaSymlinks(store, rebuilt)).toEqual({ written: 4, unchanged: 0, deleted: 4 });
    expect(await symlinks()).toEqual(expected(rebuilt));
    for (const table of INDEX_TABLES) {
      expect(await store.versions(athenaSymlinkKey(table, "2026-01-01"))).toEqual([]);
      expect(await store.head(athenaSymlinkKey(table, "2026-01-01"))).toBeUndefined();
    }
  });

  it("puts right a symlink that says something else (a run that failed or raced), and leaves other keys alone", async () => {
    const manifest = await generation(0, ["2026-01-01"]);
    await writeAthenaSymlinks(store, manifest);
    const stray = `${ATHENA_SYMLINKS_PREFIX}README.txt`;
    await store.put(stray, "not a symlink", { contentType: "text/plain" });
    await store.put(athenaSymlinkKey("flows", "2026-01-01"), "s3://elsewhere/old.parquet", {
      contentType: "text/plain",
    });
    expect(await writeAthenaSymlinks(store, manifest)).toEqual({ written: 1, unchanged: 3, deleted: 0 });
    expect(await symlinks()).toEqual({ ...expected(manifest), [stray]: "not a symlink" });
  });
});
