import { createHash } from "node:crypto";
import { mapLimit, type ObjectStore, type StoredObject } from "@voxtrail/core";
import type { IndexManifest } from "./index-manifest";
import { INDEX_TABLES, type IndexTable } from "./index-rows";

/**
 * Where Athena finds the index: per table and day, one folder holding one text file, `manifest`,
 * that names the s3:// URI of the day's live Parquet file (Hive's `SymlinkTextInputFormat`, as
 * Delta Lake's `_symlink_format_manifest` and S3 Inventory's `hive/dt=.../symlink.txt` are read).
 * The Glue tables' partition projection (stacks/lineage-index.ts) points each `day` at
 * `<prefix><table>/day=<day>/`, so Athena reads exactly the files the latest manifest names, never
 * the superseded or orphaned ones still waiting in the day folders for `vacuumIndex`.
 *
 * Outside `lineage-index/` on purpose: `vacuumIndex` deletes every file there that no kept manifest
 * names once it is an hour old, and these would be among them.
 */
export const ATHENA_SYMLINKS_PREFIX = "lineage-athena/";

/** The name of the one file in each symlink folder (no leading `_` or `.`: engines skip those). */
export const ATHENA_SYMLINK_FILE = "manifest";

/**
 * The symlink file of `table` on `day`.
 *
 * @example
 * athenaSymlinkKey("edges", "2026-12-02"); // "lineage-athena/edges/day=2026-12-02/manifest"
 */
export function athenaSymlinkKey(table: IndexTable, day: string): string {
  return `${ATHENA_SYMLINKS_PREFIX}${table}/day=${day}/${ATHENA_SYMLINK_FILE}`;
}

/** The table and day a symlink key names, or `undefined` for any other key. */
export function ofAthenaSymlinkKey(key: string): { table: IndexTable; day: string } | undefined {
  if (!key.startsWith(ATHENA_SYMLINKS_PREFIX)) return undefined;
  const match = /^([^/]+)\/day=([^/]+)\/([^/]+)$/.exec(key.slice(ATHENA_SYMLINKS_PREFIX.length));
  const table = match?.[1] as IndexTable | undefined;
  if (!match || !table || !INDEX_TABLES.includes(table) || match[3] !== ATHENA_SYMLINK_FILE) return undefined;
  return { table, day: match[2] as string };
}

/** What {@link writeAthenaSymlinks} did, as counts. */
export interface SymlinkUpdate {
  /** Symlink files written: new days, and days whose live file changed. */
  written: number;
  /** Symlink files that already named their day's live file. */
  unchanged: number;
  /** Symlink files removed: days the manifest no longer has. */
  deleted: number;
}

/** Options of {@link writeAthenaSymlinks}. */
export interface SymlinkOptions {
  /** Symlink files read (and written) at once (default 16). */
  concurrency?: number;
}

/**
 * Makes the symlink files say what `manifest` says: for each of its days and tables,
 * `lineage-athena/<table>/day=<day>/manifest` holds the s3:// URI (`store.uri`) of that day's file
 * of the table, written only where the current one says otherwise (each is compared, by the sha256
 * its HEAD reports, so a run after a failed or raced one puts things right). The version a write
 * replaces is deleted by its id (nothing reads an old symlink; a version a raced write leaves
 * behind is the bucket lifecycle's, stacks/storage.ts), and so is every version of the symlink of
 * a day the manifest no longer has, newest first, without a delete marker. No call lists versions.
 * A query that starts meanwhile reads each table's day either as it was or as it is now: a file the
 * old symlink names stays until `vacuumIndex` ends its generation's grace.
 *
 * @example
 * const latest = await latestManifest(store);
 * if (latest) await writeAthenaSymlinks(store, latest.manifest); // { written: 4, unchanged: 36, deleted: 0 }
 */
export async function writeAthenaSymlinks(
  store: ObjectStore,
  manifest: IndexManifest,
  options: SymlinkOptions = {},
): Promise<SymlinkUpdate> {
  const concurrency = options.concurrency ?? 16;
  const wanted = Object.entries(manifest.days).flatMap(([day, { files }]) =>
    INDEX_TABLES.map((table) => ({ key: athenaSymlinkKey(table, day), body: store.uri(files[table]) })),
  );
  const changed = await mapLimit(wanted, concurrency, async ({ key, body }) => {
    const current = await store.head(key);
    if (current && (await holds(store, current, body))) return false;
    await store.put(key, body, { contentType: "text/plain" });
    if (current?.versionId) await store.delete(key, { versionId: current.versionId });
    return true;
  });
  const keep = new Set(wanted.map(({ key }) => key));
  const gone = (await store.list(ATHENA_SYMLINKS_PREFIX)).filter(
    (key) => ofAthenaSymlinkKey(key) !== undefined && !keep.has(key),
  );
  await mapLimit(gone, concurrency, (key) => removeEveryVersion(store, key));
  const written = changed.filter(Boolean).length;
  return { written, unchanged: wanted.length - written, deleted: gone.length };
}

/** Whether the symlink `current` describes already holds `body` (by its recorded sha256, else its bytes). */
async function holds(store: ObjectStore, current: StoredObject, body: string): Promise<boolean> {
  if (current.sha256) return current.sha256 === createHash("sha256").update(body, "utf8").digest("hex");
  return (await store.getBytes(current.key)).toString("utf8") === body;
}

/** Versions of one symlink deleted at most (a store that keeps more is not one this writes). */
const MAX_VERSIONS = 100;

/**
 * Deletes `key`'s versions by id, the current one each time, until none is left: the key is gone,
 * without the delete marker a plain delete leaves in a versioned bucket. In a store that keeps no
 * versions (no version id), one plain delete removes it.
 */
async function removeEveryVersion(store: ObjectStore, key: string): Promise<void> {
  for (let removed = 0; removed < MAX_VERSIONS; removed++) {
    const current = await store.head(key);
    if (!current) return;
    if (!current.versionId) return store.delete(key);
    await store.delete(key, { versionId: current.versionId });
  }
}
