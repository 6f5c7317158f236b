import { createHash } from "node:crypto";
import { ObjectNotFound, type ObjectStore } from "@voxtrail/core";
import * as z from "zod/mini";
import type { IndexManifest } from "./index-manifest";
import type { IndexRows, IndexTable } from "./index-rows";
import { LineageIndexTampered } from "./index-tampered";

/**
 * The lookups a generation's filters answer, by table: the ones a walk asks value by value (the
 * edges of a key, the records of a job). Other lookups (a name as a uri or a sha256, once per
 * question) read every day's file.
 */
export const FILTERED_LOOKUPS = { edges: "key", records: "job" } as const satisfies Partial<
  Record<IndexTable, string>
>;

/** A table whose lookups by one column a day's filter answers ({@link FILTERED_LOOKUPS}). */
export type FilteredTable = keyof typeof FILTERED_LOOKUPS;

/** Bits set per value, and bits of filter per value: about 1% of absent values then test present. */
const HASHES = 7;
const BITS_PER_VALUE = 10;

/**
 * The header of one generation's filters file: a line of JSON, then the filters' bits. For each day,
 * a Bloom filter of the values its files hold in the {@link FILTERED_LOOKUPS} columns, as the
 * offset and length of its bits after the header's line. A value not in a day's filter is not in
 * that day's files; a value in it may be (about 1 in 100 absent values tests present). A day with
 * no filter (indexed by a release before filters) may hold anything. Raw bits, not base64 in JSON:
 * a question reads the whole file (a megabyte at 100,000 jobs) before its first lookup.
 */
const LookupFiltersHeader = z.object({
  schemaVersion: z.literal(1),
  hashes: z.number(),
  lookups: z.array(z.string()),
  days: z.record(z.string(), z.tuple([z.number(), z.number()])),
});
type LookupFiltersHeader = z.infer<typeof LookupFiltersHeader>;

/** The lookups a filters file covers, as it names them (`edges.key`). */
const LOOKUP_NAMES = Object.entries(FILTERED_LOOKUPS).map(([table, column]) => `${table}.${column}`);

/**
 * The Bloom filter of one day's {@link FILTERED_LOOKUPS} values (its bits), built from the day's
 * rows as its files hold them.
 *
 * @example
 * filters[day] = dayFilterOf(merged); // carried in the generation's filters file
 */
export function dayFilterOf(rows: IndexRows): Uint8Array {
  const values = filteredValues(rows);
  const bits = new Uint8Array(Math.max(8, Math.ceil((values.length * BITS_PER_VALUE) / 8)));
  for (const { table, value } of values) {
    for (const bit of bitsOf(table, value, bits.length * 8))
      bits[bit >> 3] = (bits[bit >> 3] as number) | (1 << (bit & 7));
  }
  return bits;
}

/** The distinct values `rows` hold in the {@link FILTERED_LOOKUPS} columns, with their tables. */
export function filteredValues(rows: IndexRows): Array<{ table: FilteredTable; value: string }> {
  return (Object.keys(FILTERED_LOOKUPS) as FilteredTable[]).flatMap((table) => {
    const column = FILTERED_LOOKUPS[table];
    const values = new Set(
      (rows[table] as unknown as Array<Record<string, string>>).map((row) => row[column] as string),
    );
    return [...values].map((value) => ({ table, value }));
  });
}

/**
 * A generation's filters, read: which days' files may hold a value of a filtered lookup.
 *
 * @example
 * const filters = parseLookupFilters(bytes, manifest.filters.key);
 * filters.daysWith("records", jobId, Object.keys(manifest.days)); // usually one day
 */
export interface LookupFilters {
  /** Of `days`, those whose files may hold `value` in `table`'s filtered column (a day with no filter may). */
  daysWith(table: FilteredTable, value: string, days: readonly string[]): string[];
  /** Each day's filter as written, for the next generation to carry. */
  readonly days: Readonly<Record<string, Uint8Array>>;
}

/** Whether `table`'s lookups by `column` are ones the filters answer ({@link FILTERED_LOOKUPS}). */
export function isFilteredLookup(table: IndexTable, column: string): table is FilteredTable {
  return (FILTERED_LOOKUPS as Partial<Record<IndexTable, string>>)[table] === column;
}

/**
 * The lookup filters `manifest` names, read from `store` (none when it names none). With `check`
 * (a proven generation), its bytes must hash to the sha256 the manifest records, and it must be
 * there: else it rejects with `LineageIndexTampered`, as a table file would. Unchecked, one that is
 * gone gives none: every day's files are read.
 *
 * @example
 * const filters = await lookupFiltersOf(store, proof.stored.manifest, proof.status === "proven");
 */
export async function lookupFiltersOf(
  store: ObjectStore,
  manifest: IndexManifest,
  check: boolean,
): Promise<LookupFilters | undefined> {
  if (!manifest.filters) return undefined;
  const { key, sha256 } = manifest.filters;
  let bytes: Buffer;
  try {
    bytes = await store.getBytes(key);
  } catch (error) {
    if (!(error instanceof ObjectNotFound)) throw error;
    if (!check) return undefined;
    throw new LineageIndexTampered(`the lineage index file ${key}, which its signed manifest names, is gone`);
  }
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (check && actual !== sha256) {
    throw new LineageIndexTampered(
      `the lineage index file ${key} has sha256 ${actual}, but generation ${manifest.generation}'s manifest records ${sha256}`,
    );
  }
  return parseLookupFilters(bytes, key);
}

/** The filters file's bytes for `days` (day: its filter's bits). */
export function encodeLookupFilters(days: Record<string, Uint8Array>): Buffer {
  const offsets: LookupFiltersHeader["days"] = {};
  let offset = 0;
  for (const [day, bits] of Object.entries(days)) {
    offsets[day] = [offset, bits.length];
    offset += bits.length;
  }
  const header: LookupFiltersHeader = {
    schemaVersion: 1,
    hashes: HASHES,
    lookups: LOOKUP_NAMES,
    days: offsets,
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...Object.values(days)]);
}

/**
 * The filters file at `key` read back ({@link encodeLookupFilters}). A file written for other
 * lookups or hashes than this release's answers nothing: every day may hold every value. Bytes that
 * are not a filters file reject with `LineageIndexTampered` naming `key`.
 */
export function parseLookupFilters(bytes: Uint8Array, key: string): LookupFilters {
  const line = bytes.indexOf(0x0a);
  const bits = bytes.subarray(line + 1);
  let header: LookupFiltersHeader;
  try {
    header = LookupFiltersHeader.parse(JSON.parse(Buffer.from(bytes.subarray(0, line)).toString("utf8")));
  } catch {
    throw new LineageIndexTampered(`the lineage index file ${key} is not a lookup filters file`);
  }
  const fits = Object.values(header.days).every(
    ([offset, length]) => offset >= 0 && length > 0 && offset + length <= bits.length,
  );
  if (line < 0 || !fits)
    throw new LineageIndexTampered(`the lineage index file ${key} is not a lookup filters file`);
  const covers =
    header.hashes === HASHES &&
    header.lookups.length === LOOKUP_NAMES.length &&
    LOOKUP_NAMES.every((name) => header.lookups.includes(name));
  const days: Record<string, Uint8Array> = {};
  if (covers) {
    for (const [day, [offset, length]] of Object.entries(header.days))
      days[day] = bits.subarray(offset, offset + length);
  }
  return {
    days,
    daysWith(table, value, asked) {
      const positions = new Map<number, number[]>();
      return asked.filter((day) => {
        const filter = days[day];
        if (!filter) return true;
        const size = filter.length * 8;
        const at = positions.get(size) ?? bitsOf(table, value, size);
        positions.set(size, at);
        return at.every((bit) => (filter[bit >> 3] as number) & (1 << (bit & 7)));
      });
    },
  };
}

/** The bits `value` of `table` sets in a filter of `size` bits (double hashing of its sha256). */
function bitsOf(table: FilteredTable, value: string, size: number): number[] {
  const digest = createHash("sha256").update(`${table}.${FILTERED_LOOKUPS[table]}\u0000${value}`).digest();
  const first = digest.readUInt32LE(0);
  const step = (digest.readUInt32LE(4) | 1) >>> 0;
  return Array.from({ length: HASHES }, (_, index) => (first + index * step) % size);
}
