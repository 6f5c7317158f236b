import { createHash } from "node:crypto";
import { mapLimit, type ObjectStore } from "@voxtrail/core";
import { type IndexManifest, lookupFiltersKey, manifestKey, tableFileKey } from "./index-manifest";
import { appendRows, emptyRows, INDEX_TABLES, type IndexRows, type IndexTable } from "./index-rows";
import { PARQUET_CONTENT_TYPE, readTableParquet, tableParquet } from "./index-tables";
import { LineageIndexTampered } from "./index-tampered";
import { dayFilterOf, encodeLookupFilters, parseLookupFilters } from "./lookup-filters";

/** What one generation changes: the jobs whose rows it (re)writes, and the manifest fields it sets. */
export interface GenerationChange {
  /** Per job, its rows now (they replace any the index held for it). */
  jobs: Map<string, IndexRows>;
  watermark: string | null;
  recent: Record<string, string>;
  /** Start from nothing: the days of `base` are dropped (a reindex). */
  replaceAll?: boolean;
}

/** A generation written: its manifest, its key, and the hex sha256 of the manifest's bytes. */
export interface WrittenGeneration {
  key: string;
  manifest: IndexManifest;
  sha256: string;
}

/**
 * Writes the next generation after `base`: for each day the change touches, that day's rows in
 * `base` less the changed jobs, plus their new rows, as one new file per table; then the manifest,
 * only if no other writer created that generation first. Resolves to `undefined` when one did (the
 * files this call wrote are then deleted: no manifest names them). The manifest records each file's
 * sha256: of the bytes written for a file this call writes, as `base` recorded it for a file it
 * carries, or, for a file `base` carried without one (a manifest written before files were
 * hashed), of its bytes as read now. The generation's lookup filters (`lookup-filters.ts`) hold a
 * new filter for each day written and `base`'s for each day carried.
 */
export async function writeGeneration(
  store: ObjectStore,
  base: IndexManifest | undefined,
  change: GenerationChange,
): Promise<WrittenGeneration | undefined> {
  const generation = (base?.generation ?? -1) + 1;
  const days: IndexManifest["days"] = change.replaceAll ? {} : await hashedDays(store, base?.days ?? {});
  const filters: Record<string, Uint8Array> = change.replaceAll ? {} : await carriedFilters(store, base);
  const byDay = new Map<string, IndexRows>();
  for (const rows of change.jobs.values()) {
    const day = rows.jobs[0]?.day;
    if (day === undefined) continue;
    appendRows(byDay.get(day) ?? (byDay.set(day, emptyRows()).get(day) as IndexRows), rows);
  }
  const written: string[] = [];
  try {
    for (const [day, fresh] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
      const kept = days[day] ? await readDay(store, days[day], change.jobs) : emptyRows();
      const merged = sortRows(appendRows(kept, fresh));
      const files = {} as Record<IndexTable, string>;
      const sha256 = {} as Record<IndexTable, string>;
      for (const table of INDEX_TABLES) {
        const key = tableFileKey(table, day, generation);
        written.push(key);
        const bytes = tableParquet(table, merged[table]);
        await store.put(key, bytes, { contentType: PARQUET_CONTENT_TYPE });
        files[table] = key;
        sha256[table] = sha256Hex(bytes);
      }
      days[day] = { jobs: merged.jobs.length, files, sha256 };
      filters[day] = dayFilterOf(merged);
    }
    const filtersKey = lookupFiltersKey(generation);
    written.push(filtersKey);
    const filtersBody = encodeLookupFilters(filters);
    await store.put(filtersKey, filtersBody, { contentType: "application/octet-stream" });
    const manifest: IndexManifest = {
      schemaVersion: 1,
      generation,
      writtenAt: new Date().toISOString(),
      watermark: change.watermark,
      recent: change.recent,
      pendingNotes: true,
      jobs: Object.values(days).reduce((sum, day) => sum + day.jobs, 0),
      filters: { key: filtersKey, sha256: sha256Hex(filtersBody) },
      days,
    };
    const key = manifestKey(generation);
    const body = `${JSON.stringify(manifest)}\n`;
    if (await store.putIfAbsent(key, body, { contentType: "application/json" }))
      return { key, manifest, sha256: sha256Hex(Buffer.from(body)) };
  } catch (error) {
    await deleteForGood(store, written).catch(() => undefined);
    throw error;
  }
  await deleteForGood(store, written);
  return undefined;
}

/** `days` with each day's files' sha256: as recorded, or hashed now where a day has none recorded. */
async function hashedDays(store: ObjectStore, days: IndexManifest["days"]): Promise<IndexManifest["days"]> {
  const entries = await mapLimit(Object.entries(days), 8, async ([day, entry]) => {
    if (entry.sha256) return [day, entry] as const;
    const sha256 = {} as Record<IndexTable, string>;
    for (const table of INDEX_TABLES) sha256[table] = sha256Hex(await store.getBytes(entry.files[table]));
    return [day, { ...entry, sha256 }] as const;
  });
  return Object.fromEntries(entries);
}

/**
 * The filters of `base`'s days, to carry into the next generation: none when it has none (written
 * before filters; its days' files are then all read until rewritten). The file is checked as a
 * table file is ({@link readAsRecorded}).
 */
async function carriedFilters(
  store: ObjectStore,
  base: IndexManifest | undefined,
): Promise<Record<string, Uint8Array>> {
  if (!base?.filters) return {};
  const bytes = await readAsRecorded(store, base.filters.key, base.filters.sha256);
  return { ...parseLookupFilters(bytes, base.filters.key).days };
}

/** Hex sha256 of `bytes`: what a manifest records of each file, and a digest of the manifest. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * A day's rows as its files hold them, less the rows of the jobs in `replaced` (each file checked
 * by {@link readAsRecorded}).
 */
async function readDay(
  store: ObjectStore,
  day: IndexManifest["days"][string],
  replaced: ReadonlyMap<string, unknown>,
): Promise<IndexRows> {
  const rows = emptyRows();
  await Promise.all(
    INDEX_TABLES.map(async (table) => {
      const bytes = await readAsRecorded(store, day.files[table], day.sha256?.[table]);
      const all = await readTableParquet(table, bytes);
      (rows[table] as unknown[]) = (all as Array<{ job: string }>).filter((row) => !replaced.has(row.job));
    }),
  );
  return rows;
}

/**
 * The bytes of the index file at `key`, which must hash to `recorded` (where the manifest records
 * a sha256): else it rejects with {@link LineageIndexTampered}, since what it holds would pass into
 * a new file, hashed afresh.
 */
async function readAsRecorded(
  store: ObjectStore,
  key: string,
  recorded: string | undefined,
): Promise<Buffer> {
  const bytes = await store.getBytes(key);
  if (recorded !== undefined && sha256Hex(bytes) !== recorded) {
    throw new LineageIndexTampered(
      `the lineage index file ${key} is not the file its manifest records (sha256 ${recorded}): not compacted from; \`voxtrail lineage reindex\` rebuilds the index from the records`,
    );
  }
  return bytes;
}

/** Rows in the order lookups prune best by: edges by key, the rest by job. */
function sortRows(rows: IndexRows): IndexRows {
  const by =
    (...fields: string[]) =>
    (a: object, b: object) => {
      for (const field of fields) {
        const x = String((a as Record<string, unknown>)[field]);
        const y = String((b as Record<string, unknown>)[field]);
        if (x !== y) return x < y ? -1 : 1;
      }
      return 0;
    };
  rows.edges.sort(by("key", "record_key", "role"));
  rows.flows.sort(by("job", "record_key"));
  rows.records.sort(by("job", "record_key"));
  rows.jobs.sort(by("job"));
  return rows;
}

/** Deletes every version of each key: index files are derived, and kept versions would only take space. */
export async function deleteForGood(store: ObjectStore, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    for (const { versionId } of await store.versions(key)) await store.delete(key, { versionId });
    await store.delete(key);
  }
}
