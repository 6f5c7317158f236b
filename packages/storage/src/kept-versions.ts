import { createHash, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { removeEmptyDirectories, removeFile } from "./directory-tree";
import { hasErrorCode } from "./errno";
import { linkMakingDirectory } from "./new-file";
import { readRegularFile } from "./regular-file";

/** Top-level directory of the directory store's versions; keys under it are refused. */
export const VERSIONS_DIR = ".versions";

/** What the store records about one version of an object. */
export interface VersionSidecar {
  key: string;
  versionId: string;
  contentType: string;
  sha256: string;
  bytes: number;
  etag: string;
}

let counter = 0;

/**
 * A new version id: the time in base 36, a per-process counter and 8 random bytes, so ids sort
 * in the order their writes began (ties between processes in one millisecond broken at random).
 */
export function newVersionId(): string {
  counter = (counter + 1) % 36 ** 4;
  return [
    Date.now().toString(36).padStart(9, "0"),
    counter.toString(36).padStart(4, "0"),
    randomBytes(8).toString("hex"),
  ].join(".");
}

/**
 * Every version of every key of a directory store, as hard links to the bodies written: the body
 * of version `v` of `key` is `<root>/.versions/<sha256(key)>/<v>` and its sidecar is beside it
 * (`<v>.json`, naming the key). A hash names the directory, so no key's versions can clash with
 * another's whatever the keys' shapes.
 */
export class KeptVersions {
  constructor(private readonly root: string) {}

  /** Makes the directory of `key`'s versions, if missing, before {@link keep} (synchronously: see `DirectoryStore`). */
  makeDirectory(key: string): void {
    mkdirSync(this.#directory(key), { recursive: true });
  }

  /**
   * Keeps `file` (a body just written) as the body of version `versionId` of `key`: a version only
   * once its {@link sidecar} is there. The key's directory is made again if it is
   * missing (not made first, or emptied since by a removal). Synchronous, as the directory store's
   * other metadata changes on the way to a write.
   */
  keep(file: string, key: string, versionId: string): void {
    linkMakingDirectory(file, this.body(key, versionId));
  }

  /**
   * The path of a version's sidecar: once there (after {@link keep} has kept its body), it makes
   * the body a version.
   */
  sidecar(key: string, versionId: string): string {
    return `${this.body(key, versionId)}.json`;
  }

  /** The path of a version's body (which may not exist). */
  body(key: string, versionId: string): string {
    if (!/^[0-9a-z.]+$/.test(versionId)) return path.join(this.#directory(key), "no-such-version");
    return path.join(this.#directory(key), versionId);
  }

  /**
   * The version's sidecar, or `undefined` when the key has no such version. Read as the store reads
   * the key's sidecar (`readRegularFile`: on this thread, not in four thread pool round trips).
   */
  async read(key: string, versionId: string): Promise<VersionSidecar | undefined> {
    let bytes: Buffer | undefined;
    try {
      bytes = await readRegularFile(this.sidecar(key, versionId));
    } catch (error) {
      if (hasErrorCode(error, "ENOENT", "ENOTDIR")) return undefined;
      throw error;
    }
    if (bytes === undefined) return undefined; // Not a regular file: not a sidecar the store wrote.
    const sidecar = JSON.parse(bytes.toString("utf8")) as VersionSidecar;
    return sidecar.key === key ? sidecar : undefined;
  }

  /** Every kept version of `key`, newest first. */
  async list(key: string): Promise<VersionSidecar[]> {
    let names: string[];
    try {
      names = await readdir(this.#directory(key));
    } catch (error) {
      if (hasErrorCode(error, "ENOENT", "ENOTDIR")) return [];
      throw error;
    }
    const ids = names.filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -".json".length));
    const sidecars = await Promise.all(ids.map((id) => this.read(key, id)));
    return sidecars
      .filter((sidecar): sidecar is VersionSidecar => sidecar !== undefined)
      .sort((a, b) => (a.versionId < b.versionId ? 1 : -1));
  }

  /** Removes a version's body and sidecar for good; a missing version is not an error. */
  async remove(key: string, versionId: string): Promise<void> {
    const body = this.body(key, versionId);
    await removeFile(this.sidecar(key, versionId));
    await removeFile(body);
    await removeEmptyDirectories(path.dirname(body), path.join(this.root, VERSIONS_DIR));
  }

  #directory(key: string): string {
    return path.join(this.root, VERSIONS_DIR, createHash("sha256").update(key).digest("hex").slice(0, 32));
  }
}
