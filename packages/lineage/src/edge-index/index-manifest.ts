import { createHash, randomBytes } from "node:crypto";
import type { ObjectStore } from "@voxtrail/core";
import { KEY_FOLDERS } from "@voxtrail/workflow";
import * as z from "zod/mini";
import type { IndexTable } from "./index-rows";

/** Where the lineage edge index lives: table files by day, and the manifests that name them. */
export const LINEAGE_INDEX_PREFIX = KEY_FOLDERS.lineageIndex;

/** Prefix of the manifests, one per generation of the index. */
export const INDEX_MANIFESTS_PREFIX = `${LINEAGE_INDEX_PREFIX}manifests/`;

const TableFiles = z.object({ edges: z.string(), flows: z.string(), records: z.string(), jobs: z.string() });

/**
 * One generation of the index: for each day, the one file of each table that holds that day's
 * jobs now. A reader reads only the files its manifest names, so files being written, or left by
 * a compaction that crashed or lost a race, are never counted. A new generation is created only
 * if absent (`putIfAbsent`): of two compactions that start from the same generation, one wins
 * and the other starts again from the winner's.
 */
export const IndexManifest = z.object({
  schemaVersion: z.literal(1),
  generation: z.number().check(z.int(), z.nonnegative()),
  writtenAt: z.iso.datetime(),
  /**
   * The latest time a lineage summary in the index was written, as the store lists it: a summary
   * listed as written before `watermark` less {@link INDEX_RESCAN_MARGIN_MS} is in the index as it
   * is; later ones are checked against `recent`. `null` when the store lists no times (every
   * summary is then checked).
   */
  watermark: z.nullable(z.iso.datetime()),
  /** Per job whose summary was written within the margin before `watermark`: that time. */
  recent: z.record(z.string(), z.string()),
  /**
   * Set by every generation written since jobs leave notes as they end (`keys.lineageIndexNote`):
   * the jobs finished since this generation are then those with notes. Absent from older
   * manifests, whose readers list every summary instead.
   */
  pendingNotes: z.optional(z.literal(true)),
  jobs: z.number().check(z.int(), z.nonnegative()),
  /**
   * The generation's lookup filters (`lookup-filters.ts`): which day's files may hold a key or a
   * job, so that a walk reads those days' files only; with the sha256 of the file's bytes. Absent
   * from manifests written before filters: every day's files are read.
   */
  filters: z.optional(z.object({ key: z.string(), sha256: z.string() })),
  days: z.record(
    z.string(),
    z.object({
      jobs: z.number().check(z.int(), z.nonnegative()),
      files: TableFiles,
      /**
       * Hex sha256 of each of `files`' bytes, by table, as the compaction that wrote (or carried)
       * the file had them. Absent from manifests written before files were hashed: their files
       * are unproven (readers say so), and the next generation written from them hashes them.
       */
      sha256: z.optional(TableFiles),
    }),
  ),
});
export type IndexManifest = z.infer<typeof IndexManifest>;

/**
 * How long before the watermark a summary is looked at again: longer than a compaction runs (a
 * summary written while the listing was read has a time after it began) and any clock skew
 * between writers and the store, as for the digests.
 */
export const INDEX_RESCAN_MARGIN_MS = 30 * 60 * 1000;

/** The key of generation `generation`'s manifest: zero-padded, so keys list in generation order. */
export function manifestKey(generation: number): string {
  return `${INDEX_MANIFESTS_PREFIX}g${String(generation).padStart(12, "0")}.json`;
}

/**
 * A new file of `table` for `day`: named by the generation it is written for, and a random part so
 * that two compactions of one generation never write the same key.
 */
export function tableFileKey(table: IndexTable, day: string, generation: number): string {
  const nonce = randomBytes(4).toString("hex");
  return `${LINEAGE_INDEX_PREFIX}${table}/day=${day}/g${String(generation).padStart(12, "0")}-${nonce}.parquet`;
}

/** A new filters file for `generation` (see `IndexManifest.filters`), named as {@link tableFileKey} names a table's. */
export function lookupFiltersKey(generation: number): string {
  const nonce = randomBytes(4).toString("hex");
  return `${LINEAGE_INDEX_PREFIX}filters/g${String(generation).padStart(12, "0")}-${nonce}.bin`;
}

/** A manifest as read from the store: its key, its document, and the hex sha256 of its exact bytes. */
export interface StoredManifest {
  key: string;
  manifest: IndexManifest;
  sha256: string;
}

/** The latest manifest, its key and its bytes' sha256, or `undefined` when the store has no index. */
export async function latestManifest(store: ObjectStore): Promise<StoredManifest | undefined> {
  const key = (await store.list(INDEX_MANIFESTS_PREFIX)).filter((name) => name.endsWith(".json")).at(-1);
  if (key === undefined) return undefined;
  return readManifest(store, key);
}

/** The manifest at `key` (its bytes must parse as one: `IndexManifest`), with its bytes' sha256. */
export async function readManifest(store: ObjectStore, key: string): Promise<StoredManifest> {
  const bytes = await store.getBytes(key);
  const manifest = IndexManifest.parse(JSON.parse(bytes.toString("utf8")));
  return { key, manifest, sha256: createHash("sha256").update(bytes).digest("hex") };
}
