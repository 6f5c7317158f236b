import type { BigIntStats } from "node:fs";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defaultSigningKeyPath } from "@voxtrail/lineage/answers";

/** A file as hashed: the sha256 it matched, and its identity on disk then. */
interface Verified {
  sha256: string;
  dev: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
}

/** Entries kept at most (the latest checked): about the files of a few 100-day indexes. */
const MAX_ENTRIES = 4000;

/**
 * A file is remembered only once its status changed this long before it was hashed: the kernel
 * stamps `ctime` from a coarse clock, so a write within a tick of an earlier one could keep its
 * `ctime` (git's "racy clean" files); a file changed earlier than this cannot be changed again
 * without a later `ctime`.
 */
const SETTLED_MS = 2000;

/**
 * Where the remembered files live: beside the local signing key (`defaultSigningKeyPath()`),
 * outside any store, so that whoever can write a store cannot vouch for a file through it.
 */
export function verifiedFilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(defaultSigningKeyPath(env)), "verified-index-files.json");
}

/**
 * The index files of directory stores this machine has already hashed against a signed manifest,
 * by path, with the file's identity on disk then (device, inode, size, and modification and
 * status-change times in nanoseconds). A file whose identity is unchanged has the same bytes: any
 * write gives it a new `ctime`, which no one but root (or whoever sets the clock) can set back. So
 * a question asked again, or after a compaction that rewrote a few days, hashes only the files
 * that changed. A file moved, copied, or written in any way is hashed again.
 *
 * @example
 * const verified = await VerifiedFiles.load();
 * if (!verified.has(path, sha256, await stat(path, { bigint: true }))) { ... }
 */
export class VerifiedFiles {
  readonly #path: string;
  readonly #entries: Map<string, Verified>;
  #changed = false;

  private constructor(path: string, entries: Map<string, Verified>) {
    this.#path = path;
    this.#entries = entries;
  }

  /** The remembered files at `path` (none when there is no file, or it does not parse). */
  static async load(path = verifiedFilesPath()): Promise<VerifiedFiles> {
    try {
      const parsed = JSON.parse(await readFile(path, "utf8")) as Record<string, Verified>;
      return new VerifiedFiles(path, new Map(Object.entries(parsed)));
    } catch {
      return new VerifiedFiles(path, new Map());
    }
  }

  /** Whether `file`, with status `now`, was hashed to `sha256` and has not changed since. */
  has(file: string, sha256: string, now: BigIntStats): boolean {
    const entry = this.#entries.get(file);
    return entry !== undefined && entry.sha256 === sha256 && same(entry, identity(now));
  }

  /**
   * Remembers that `file` hashed to `sha256`, if its status was the same before and after it was
   * read (`before`, `after`) and it changed at least {@link SETTLED_MS} before `hashedAt`.
   */
  add(file: string, sha256: string, before: BigIntStats, after: BigIntStats, hashedAt: number): void {
    const was = identity(before);
    if (!same(was, identity(after))) return;
    if (Number(before.ctimeNs / 1_000_000n) > hashedAt - SETTLED_MS) return;
    this.#entries.delete(file);
    this.#entries.set(file, { sha256, ...was });
    this.#changed = true;
  }

  /** Writes the remembered files back (whole, by rename), the latest {@link MAX_ENTRIES}; errors are ignored. */
  async save(): Promise<void> {
    if (!this.#changed) return;
    const kept = [...this.#entries].slice(-MAX_ENTRIES);
    const aside = `${this.#path}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      await writeFile(aside, JSON.stringify(Object.fromEntries(kept)), { mode: 0o600 });
      await rename(aside, this.#path);
    } catch {
      // A cache: the next question hashes again.
    }
  }
}

/** The status of `path` in nanoseconds (`fs.stat` with `bigint`). */
export function statOf(path: string): Promise<BigIntStats> {
  return stat(path, { bigint: true });
}

function identity(stats: BigIntStats): Omit<Verified, "sha256"> {
  return {
    dev: String(stats.dev),
    ino: String(stats.ino),
    size: String(stats.size),
    mtimeNs: String(stats.mtimeNs),
    ctimeNs: String(stats.ctimeNs),
  };
}

function same(a: Omit<Verified, "sha256">, b: Omit<Verified, "sha256">): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeNs === b.mtimeNs &&
    a.ctimeNs === b.ctimeNs
  );
}
