import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mapLimit, ObjectNotFound, type ObjectStore } from "@voxtrail/core";
import {
  checkIndexFile,
  type IndexManifest,
  type IndexTable,
  LineageIndexTampered,
} from "@voxtrail/lineage/answers";
import { statOf, type VerifiedFiles } from "./verified-files";

/**
 * Where DuckDB reads the files of one generation: a directory store's in place, a bucket's fetched
 * into `scratch` (with the AWS SDK, never DuckDB's own S3 extension, which downloads itself at run
 * time). Each file is made ready the first time a query needs it, not before: a walk whose lookup
 * filters rule out most days reads, checks and fetches a day's file or two, not every day's. With
 * `check` (a proven generation), a file is hashed against its manifest's sha256 before its path is
 * given (a directory store's file not again while it is unchanged on disk since this machine hashed
 * it: `verified`); one that differs, or is gone, rejects with `LineageIndexTampered` naming it.
 *
 * @example
 * const files = new IndexFilePaths(store, manifest, { scratch, check: true, verified });
 * const paths = await files.paths("edges", ["2026-12-01"]);
 */
export class IndexFilePaths {
  readonly #ready = new Map<string, Promise<string>>();

  constructor(
    private readonly store: ObjectStore,
    private readonly manifest: IndexManifest,
    private readonly options: { scratch: string; check: boolean; verified: VerifiedFiles | undefined },
  ) {}

  /** The files of `tables` that the manifest records no sha256 for (indexed before files were hashed). */
  unproven(tables: readonly IndexTable[]): number {
    if (!this.options.check) return 0;
    return Object.values(this.manifest.days).reduce(
      (count, day) => count + tables.filter((table) => day.sha256?.[table] === undefined).length,
      0,
    );
  }

  /** The paths of `table`'s files of `days`, in that order, each ready once. */
  paths(table: IndexTable, days: readonly string[]): Promise<string[]> {
    return mapLimit(days, 8, (day) => {
      const at = `${table}/${day}`;
      const ready = this.#ready.get(at) ?? this.#readied(table, day);
      this.#ready.set(at, ready);
      return ready;
    });
  }

  async #readied(table: IndexTable, day: string): Promise<string> {
    const key = this.manifest.days[day]?.files[table] as string;
    const uri = this.store.uri(key);
    try {
      if (!uri.startsWith("file:")) {
        const path = join(this.options.scratch, key.replaceAll("/", "_"));
        const bytes = await this.store.getBytes(key);
        if (this.options.check) checkIndexFile(this.manifest, day, table, bytes);
        await writeFile(path, bytes);
        return path;
      }
      const path = fileURLToPath(uri);
      const expected = this.manifest.days[day]?.sha256?.[table];
      if (!this.options.check || expected === undefined) return path;
      const { verified } = this.options;
      const before = await statOf(path);
      if (verified?.has(path, expected, before)) return path;
      checkIndexFile(this.manifest, day, table, await readFile(path));
      verified?.add(path, expected, before, await statOf(path), Date.now());
      return path;
    } catch (error) {
      const gone = error instanceof ObjectNotFound || (error as NodeJS.ErrnoException).code === "ENOENT";
      if (this.options.check && gone) {
        throw new LineageIndexTampered(
          `the lineage index file ${key}, which its signed manifest names, is gone`,
        );
      }
      throw error;
    }
  }
}
