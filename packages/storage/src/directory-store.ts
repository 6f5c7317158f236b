import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, linkSync, mkdirSync, rmSync, type Stats, statSync } from "node:fs";
import { type FileHandle, link, mkdir, open, realpath, rm, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { pathToFileURL } from "node:url";
import {
  InvalidKey,
  isLocalFileBody,
  mapLimit,
  type ObjectBody,
  ObjectNotFound,
  type ObjectStore,
  type ObjectVersion,
  type PutOptions,
  type StoredObject,
  type StoredVersion,
} from "@voxtrail/core";
import { TEMP_FILE_PREFIX, writeAtomically } from "./atomic-write";
import { listFiles, removeEmptyDirectories, removeFile } from "./directory-tree";
import { hasErrorCode } from "./errno";
import { copyHashing, type HashedCopy } from "./hashing-copy";
import { HashingStream } from "./hashing-stream";
import { KeptVersions, newVersionId, VERSIONS_DIR, type VersionSidecar } from "./kept-versions";
import { flushFile, writeNewFile } from "./new-file";
import { objectNotFound, objectReplaced } from "./object-errors";
import { assertValidKey } from "./object-key";
import { isInside, realpathOfExisting } from "./path-containment";
import { READ_FLAGS, readRegularFile } from "./regular-file";
import { type FileHash, Sha256Pool } from "./sha256-pool";
import { type StagedFile, stageLinkedFiles } from "./staged-file";
import { META_DIR } from "./store-root";
import { sortByUtf8 } from "./utf8-order";

/** Top-level directory holding the sidecars; keys under it are refused. */
/** File names are limited to 255 bytes and a sidecar's name adds `.json` to its segment. */
const MAX_SEGMENT_BYTES = 255 - ".json".length;
/** What `head` reports for a file that has no sidecar (one not written through the store). */
const UNKNOWN_CONTENT_TYPE = "application/octet-stream";
const PREFIX_CONFLICT =
  "object key clashes with a directory-store path: a key cannot also be a prefix of another key ('a' and 'a/b')";

/** `hashObjects` hashes fewer objects than this itself: starting a worker thread costs more. */
const HASH_IN_PROCESS_BELOW = 1024;
/** Paths sent to a hashing worker thread at once. */
const HASH_BATCH = 512;

/** The version id S3 gives objects written before versioning: here, those without one in their sidecar. */
const NULL_VERSION = "null";

/** What the sidecar `<root>/.meta/<key>.json` records about the current object. */
interface Sidecar {
  contentType: string;
  sha256: string;
  bytes: number;
  etag: string;
  /** Absent in stores written before versions were kept. */
  versionId?: string;
}

/** An object for {@link DirectoryStore.hashObjects}: its key, and the version to read if not the current one. */
export interface ObjectToHash {
  key: string;
  versionId?: string | undefined;
}

/** An object's sha256 (hex) and size, as read. */
export interface ObjectHash {
  sha256: string;
  bytes: number;
}

/** Options for {@link DirectoryStore}. */
export interface DirectoryStoreOptions {
  /** Directory holding the objects; created on first use. */
  root: string;
  /** Bucket name the store reports; defaults to `voxtrail-local`. */
  bucket?: string;
  /**
   * Whether each write is flushed to disk (`fsync`) before it counts as written: `true`, the
   * default, so an object a run reported survives a power cut. `false` for a scratch store that is
   * deleted afterwards (a load run's), whose writes then cost a third less on this machine's disk.
   */
  durable?: boolean;
}

/**
 * An `ObjectStore` in a local directory: the object under `key` is the file `<root>/<key>`, and
 * its content type, sha256, size and etag (the quoted md5 hex of the body, as S3 gives for
 * single-part uploads) are in the sidecar `<root>/.meta/<key>.json` (a second name of its current
 * version's sidecar, so it names the key too; older stores' sidecars do not).
 *
 * Like the stacks' buckets it keeps versions: every write is also kept (a hard link, no copy) as a
 * version under `<root>/.versions/` (see `KeptVersions`), a plain `delete` only hides the key, and
 * a delete by version id removes that version for good, the newest remaining one becoming current.
 *
 * Writes are atomic per file: the body is streamed (and hashed) into a temporary file beside the
 * target, renamed over it, and then the sidecar is put in place the same way (after the kept
 * version's, the same flushed file under a second name); a failed write leaves the previous object
 * intact. Between the two renames a reader can briefly see the new body with
 * the previous sidecar, and concurrent puts of one key are not serialised (the last rename of
 * each file wins, so body and sidecar may come from different puts). Beyond the common key rules it refuses keys under `.meta/`, keys that
 * resolve outside the root through a symbolic link, and a key that is also a prefix of another
 * (`a` beside `a/b`), which a file system cannot hold. `list` does not follow symbolic links.
 *
 * @example
 * const store = new DirectoryStore({ root: ".voxtrail/objects" });
 * const stored = await store.put("incoming/call.wav", audio, { contentType: "audio/wav" });
 * stored.uri; // "file:///.../.voxtrail/objects/incoming/call.wav"
 */
export class DirectoryStore implements ObjectStore {
  readonly bucket: string;
  /** Absolute path of the root directory. */
  readonly root: string;
  #realRoot: Promise<string> | undefined;
  readonly #versions: KeptVersions;
  readonly #durable: boolean;

  constructor({ root, bucket = "voxtrail-local", durable = true }: DirectoryStoreOptions) {
    this.root = path.resolve(root);
    this.bucket = bucket;
    this.#durable = durable;
    this.#versions = new KeptVersions(this.root);
  }

  /**
   * A local file is copied through one reused buffer ({@link copyHashing}), however long it is. A
   * body that is not in memory is hashed as it is written, and then flushed while its sidecars
   * are written and flushed; bytes in memory are hashed first, so their sidecars are written and
   * flushed while the body is.
   */
  async put(key: string, body: ObjectBody, options: PutOptions): Promise<StoredObject> {
    let file: string;
    try {
      file = await this.#locate(key);
      this.#makeDirectories(key, file);
    } catch (error) {
      if (body instanceof Readable) body.destroy();
      throw error;
    }
    if (typeof body === "string" || body instanceof Uint8Array) {
      return this.#putBytes(key, file, body, options);
    }
    let sidecar: Required<Sidecar> | undefined;
    let staged: StagedFile | undefined;
    try {
      await writeAtomically(file, async (temp) => {
        const { bytes, hex } = isLocalFileBody(body)
          ? await copyHashing(body.localFile, temp, ["sha256", "md5"])
          : await writeHashing(body, temp);
        sidecar = {
          contentType: options.contentType,
          sha256: hex.sha256,
          bytes,
          etag: `"${hex.md5}"`,
          versionId: newVersionId(),
        };
        // Staged before the body takes its name, so a sidecar that cannot be written fails the put
        // with the key's body and sidecar as they were.
        staged = await this.#writeWithSidecars(key, sidecar, () =>
          this.#durable ? flushFile(temp) : Promise.resolve(),
        );
        this.#versions.keep(temp, key, sidecar.versionId);
      });
    } catch (error) {
      await staged?.discard();
      throw error;
    }
    await (staged as StagedFile).commit();
    return { key, uri: this.uri(key), ...(sidecar as Required<Sidecar>) };
  }

  /**
   * The body goes to a temporary file that is then hard-linked to the key's path: `link` fails
   * when the path exists, so of concurrent callers exactly one wins. Its sidecars are written
   * while the body is and take their names after it, as in `put`.
   */
  async putIfAbsent(
    key: string,
    body: Uint8Array | string,
    options: PutOptions,
  ): Promise<StoredObject | undefined> {
    const file = await this.#locate(key);
    this.#makeDirectories(key, file);
    const sidecar = sidecarOf(body, options);
    const temp = path.join(path.dirname(file), `${TEMP_FILE_PREFIX}${randomUUID()}`);
    const staged = await this.#writeWithSidecars(key, sidecar, () =>
      writeNewFile(temp, body, this.#durable),
    ).catch(async (error: unknown) => {
      await rm(temp, { force: true });
      throw error;
    });
    try {
      // Synchronous, as the other metadata changes on the way to a write (see `#makeDirectories`).
      linkSync(temp, file);
      this.#versions.keep(temp, key, sidecar.versionId);
    } catch (error) {
      await Promise.all([rm(temp, { force: true }), staged.discard()]);
      if (hasErrorCode(error, "EEXIST")) return undefined;
      throw error;
    }
    await staged.commit();
    rmSync(temp, { force: true });
    return { key, uri: this.uri(key), ...sidecar };
  }

  /** `put` of bytes in memory: body and sidecars written at once, then put in place in that order. */
  async #putBytes(
    key: string,
    file: string,
    body: Uint8Array | string,
    options: PutOptions,
  ): Promise<StoredObject> {
    const sidecar = sidecarOf(body, options);
    let staged: StagedFile | undefined;
    try {
      await writeAtomically(file, async (temp) => {
        staged = await this.#writeWithSidecars(key, sidecar, () => writeNewFile(temp, body, this.#durable));
        this.#versions.keep(temp, key, sidecar.versionId);
      });
    } catch (error) {
      await staged?.discard();
      throw error;
    }
    await (staged as StagedFile).commit();
    return { key, uri: this.uri(key), ...sidecar };
  }

  /**
   * Runs `writeBody` while both sidecars are staged (the key's and its kept version's), and
   * returns them staged once all three are written; when any fails, nothing staged is left.
   */
  async #writeWithSidecars(
    key: string,
    sidecar: Required<Sidecar>,
    writeBody: () => Promise<void>,
  ): Promise<StagedFile> {
    const [written, staged] = await Promise.allSettled([writeBody(), this.#stageSidecars(key, sidecar)]);
    if (written.status === "fulfilled" && staged.status === "fulfilled") return staged.value;
    if (staged.status === "fulfilled") await staged.value.discard();
    throw written.status === "rejected" ? written.reason : (staged as PromiseRejectedResult).reason;
  }

  /**
   * The sidecars of version `sidecar.versionId` of `key`, the version's and the key's: one file,
   * naming the key, written and flushed once under a temporary name with a second name (a hard
   * link) for the key's; committing renames the version's into place first, so the key's never
   * names a version whose own sidecar is not there yet. Neither is ever written in place, so the
   * two names cannot drift apart: a later write of the key renames a new file over its name.
   */
  #stageSidecars(key: string, sidecar: Required<Sidecar>): Promise<StagedFile> {
    const versionSidecar: VersionSidecar = { key, ...sidecar };
    return stageLinkedFiles(
      this.#versions.sidecar(key, sidecar.versionId),
      this.#sidecarPath(key),
      JSON.stringify(versionSidecar),
      this.#durable,
    );
  }

  /** With `version`: that version by its id, or the current object if its etag matches. */
  async get(key: string, version?: ObjectVersion): Promise<Readable> {
    const handle = await this.#openFile(key, version?.versionId);
    if (version && !version.versionId) {
      try {
        this.#checkVersion(version, (await this.#readSidecar(key))?.etag);
      } catch (error) {
        await handle.close();
        throw error;
      }
    }
    return handle.createReadStream();
  }

  /**
   * With an etag alone, it is checked against the bytes read (their md5), not the sidecar. One
   * read of the whole file, its sidecar read only for a version id: lineage reads tens of
   * thousands of objects, and each costs little more than the system calls.
   */
  async getBytes(key: string, version?: ObjectVersion): Promise<Buffer> {
    const file = await this.#fileOf(key, version?.versionId);
    let bytes: Buffer | undefined;
    try {
      bytes = await readRegularFile(file);
    } catch (error) {
      throw hasErrorCode(error, "ENOENT", "ENOTDIR") ? objectNotFound("the directory store") : error;
    }
    if (bytes === undefined) throw objectNotFound("the directory store");
    if (version && !version.versionId) {
      this.#checkVersion(version, `"${createHash("md5").update(bytes).digest("hex")}"`);
    }
    return bytes;
  }

  /**
   * The sha256 and size of each object as read now (`undefined` for one that is not there), in
   * the order of `objects`: what hashing `getBytes(key, { versionId })` gives, for many objects
   * at once, with the same checks (an invalid key, or one that leads out of the root, rejects
   * with `InvalidKey`). The files are read and hashed on worker threads, in parallel with this
   * thread and each other, one buffer at a time however large they are: this thread checks the
   * keys (and reads the sidecars of those with a version id), a worker thread where a key's real
   * path leads, and only reads a file inside the root. Whatever a worker thread does not read
   * (nothing there, outside the root, an error) is read again here, as `getBytes` reads it,
   * and that answer is the one given. Fewer than 1,024 objects are hashed on this thread.
   *
   * @example
   * const [hashed] = await store.hashObjects([{ key: "incoming/call.wav", versionId }]);
   * hashed?.sha256 === recorded.sha256;
   */
  async hashObjects(objects: readonly ObjectToHash[]): Promise<Array<ObjectHash | undefined>> {
    if (objects.length < HASH_IN_PROCESS_BELOW) {
      return mapLimit(objects, 8, (object) => this.#hashInProcess(object));
    }
    // The other cores hash while this one checks keys; one of them is left to this thread.
    const pool = new Sha256Pool(Math.max(1, availableParallelism() - 1), await this.#realRootPath());
    const batches: Array<Promise<FileHash[]>> = [];
    try {
      for (let start = 0; start < objects.length; start += HASH_BATCH) {
        const files: string[] = [];
        for (const { key, versionId } of objects.slice(start, start + HASH_BATCH)) {
          // A version's file is found here (its sidecar says whether it is current).
          files.push(versionId === undefined ? this.#path(key) : await this.#fileOf(key, versionId));
        }
        batches.push(pool.hash(files));
      }
      const hashed = (await Promise.all(batches)).flat();
      return await mapLimit(objects, 8, async (object, index) => {
        const found = hashed[index];
        return typeof found === "object" ? found : this.#hashInProcess(object);
      });
    } finally {
      const settled = Promise.allSettled(batches);
      await pool.close();
      await settled;
    }
  }

  async head(key: string, version?: ObjectVersion): Promise<StoredObject | undefined> {
    const file = await this.#locate(key);
    if (version?.versionId) {
      const kept = await this.#readVersion(key, version.versionId);
      if (!kept) return undefined;
      const { key: _key, ...described } = kept;
      return { key, uri: this.uri(key), ...described };
    }
    const stats = statOrMissing(file);
    if (!stats?.isFile()) {
      return undefined;
    }
    const sidecar = await this.#readSidecar(key);
    if (version) this.#checkVersion(version, sidecar?.etag);
    return {
      key,
      uri: this.uri(key),
      bytes: stats.size,
      contentType: sidecar?.contentType ?? UNKNOWN_CONTENT_TYPE,
      sha256: sidecar?.sha256,
      etag: sidecar?.etag,
      ...(sidecar ? { versionId: sidecar.versionId ?? NULL_VERSION } : {}),
    };
  }

  async list(prefix: string): Promise<string[]> {
    const slash = prefix.lastIndexOf("/");
    const directory = slash < 0 ? this.root : await this.#locate(prefix.slice(0, slash));
    const keyPrefix = prefix.slice(0, slash + 1);
    const keys = await listFiles(directory, keyPrefix, (candidate) => {
      return (
        candidate === META_DIR ||
        candidate === VERSIONS_DIR ||
        path.posix.basename(candidate).startsWith(TEMP_FILE_PREFIX)
      );
    });
    return sortByUtf8(keys.filter((candidate) => candidate.startsWith(prefix)));
  }

  /** `list`, with each file's modification time (what S3's `LastModified` is to a bucket). */
  async listModified(prefix: string): Promise<Array<{ key: string; lastModified: Date }>> {
    const listed = await mapLimit(await this.list(prefix), 64, async (key) => {
      const stats = await stat(this.#path(key)).catch((error: unknown) => {
        if (hasErrorCode(error, "ENOENT", "ENOTDIR")) return undefined; // Deleted since listed.
        throw error;
      });
      return stats ? { key, lastModified: stats.mtime } : undefined;
    });
    return listed.filter((entry) => entry !== undefined);
  }

  async delete(key: string, version?: { versionId: string }): Promise<void> {
    const file = await this.#locate(key);
    const current = await this.#readSidecar(key);
    const currentVersion = current && (current.versionId ?? NULL_VERSION);
    if (version) await this.#versions.remove(key, version.versionId);
    if (version && version.versionId !== currentVersion) return;
    const sidecarFile = this.#sidecarPath(key);
    await removeFile(file);
    await removeFile(sidecarFile);
    if (version) {
      // As S3 does when the current version is deleted by id: the newest remaining one is current.
      const [newest] = await this.#versions.list(key);
      if (newest) {
        await writeAtomically(file, (temp) => link(this.#versions.body(key, newest.versionId), temp));
        const { key: _key, ...sidecar } = newest;
        await this.#writeSidecar(key, sidecar);
        return;
      }
    }
    await removeEmptyDirectories(path.dirname(file), this.root);
    await removeEmptyDirectories(path.dirname(sidecarFile), path.join(this.root, META_DIR));
  }

  async versions(key: string): Promise<StoredVersion[]> {
    await this.#locate(key);
    const current = await this.#readSidecar(key);
    const kept = (await this.#versions.list(key)).map(
      ({ versionId, etag, bytes }): StoredVersion => ({
        versionId,
        etag,
        bytes,
        latest: versionId === current?.versionId,
      }),
    );
    // An object written before versions were kept is S3's "null" version.
    if (current && current.versionId === undefined && (await this.head(key))) {
      kept.unshift({ versionId: NULL_VERSION, etag: current.etag, bytes: current.bytes, latest: true });
    }
    return kept;
  }

  uri(key: string): string {
    return pathToFileURL(this.#path(key)).href;
  }

  /**
   * `ObjectChanged` unless the current object is the one `version`'s etag names (quotes aside).
   * A version that names nothing is the current object.
   */
  #checkVersion(version: ObjectVersion, currentEtag: string | undefined): void {
    const unquoted = (etag: string | undefined) => etag?.replaceAll('"', "");
    if (version.etag === undefined || unquoted(version.etag) === unquoted(currentEtag)) return;
    throw objectReplaced();
  }

  /** `hashObjects` of one object, on this thread: streamed, so a large one is never whole in memory. */
  async #hashInProcess({ key, versionId }: ObjectToHash): Promise<ObjectHash | undefined> {
    const hash = createHash("sha256");
    let bytes = 0;
    try {
      for await (const chunk of await this.get(key, versionId === undefined ? undefined : { versionId })) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).byteLength;
      }
    } catch (error) {
      if (error instanceof ObjectNotFound) return undefined;
      throw error;
    }
    return { sha256: hash.digest("hex"), bytes };
  }

  /** The file holding `key` (of `versionId`: the current file while that version is current). */
  async #fileOf(key: string, versionId?: string): Promise<string> {
    const file = await this.#locate(key);
    if (
      versionId !== undefined &&
      ((await this.#readSidecar(key))?.versionId ?? NULL_VERSION) !== versionId
    ) {
      return this.#versions.body(key, versionId);
    }
    return file;
  }

  /** Opens the regular file under `key` (of `versionId`); `ObjectNotFound` when there is none. */
  async #openFile(key: string, versionId?: string): Promise<FileHandle> {
    const file = await this.#fileOf(key, versionId);
    let handle: FileHandle;
    try {
      handle = await open(file, READ_FLAGS);
    } catch (error) {
      throw hasErrorCode(error, "ENOENT", "ENOTDIR") ? objectNotFound("the directory store") : error;
    }
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw objectNotFound("the directory store");
    }
    return handle;
  }

  /** The path of `key` after the key rules (common and this store's) and the lexical root check. */
  #path(key: string): string {
    assertValidKey(key);
    const segments = key.split("/");
    if (segments[0] === META_DIR || segments[0] === VERSIONS_DIR) {
      throw new InvalidKey(
        `object key must not be under the directory store's reserved '${segments[0]}/' prefix`,
      );
    }
    for (const segment of segments) {
      if (segment.startsWith(TEMP_FILE_PREFIX)) {
        throw new InvalidKey(`object key segments must not start with the reserved '${TEMP_FILE_PREFIX}'`);
      }
      if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES) {
        throw new InvalidKey(
          `directory store key segments must be at most ${MAX_SEGMENT_BYTES} bytes of UTF-8`,
        );
      }
    }
    const file = path.join(this.root, ...segments);
    // Defence in depth: the key rules already exclude every way out of the root.
    if (!isInside(this.root, file)) {
      throw new InvalidKey("object key resolves outside the store's root");
    }
    return file;
  }

  /** Like `#path`, and also refuses a key whose existing part leads out of the root through a symlink. */
  async #locate(key: string): Promise<string> {
    const file = this.#path(key);
    if (!isInside(await this.#realRootPath(), realpathOfExisting(file))) {
      throw new InvalidKey("object key resolves outside the store's root through a symbolic link");
    }
    return file;
  }

  /** The real path of the root (created if missing), found once. */
  #realRootPath(): Promise<string> {
    this.#realRoot ??= mkdir(this.root, { recursive: true }).then(() => realpath(this.root));
    return this.#realRoot;
  }

  /**
   * The directories a write of `key` needs, made if missing: the key's (refused when the key's
   * own path is a directory, or a file stands where a directory should: a prefix of another key),
   * its sidecar's and its kept versions'. Synchronous (see `IN_THREAD_BYTES`): after a folder's
   * first write each is a lookup of an existing directory. A write that finds one removed since
   * (by a delete emptying it) makes it again.
   */
  #makeDirectories(key: string, file: string): void {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
    } catch (error) {
      // The system error names the path, so it is not kept as the cause.
      throw hasErrorCode(error, "EEXIST", "ENOTDIR") ? new InvalidKey(PREFIX_CONFLICT) : error;
    }
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new InvalidKey(PREFIX_CONFLICT);
    mkdirSync(path.dirname(this.#sidecarPath(key)), { recursive: true });
    this.#versions.makeDirectory(key);
  }

  async #writeSidecar(key: string, sidecar: Sidecar): Promise<StoredObject> {
    const sidecarFile = this.#sidecarPath(key);
    await mkdir(path.dirname(sidecarFile), { recursive: true });
    await writeAtomically(sidecarFile, (temp) => writeNewFile(temp, JSON.stringify(sidecar), this.#durable));
    return { key, uri: this.uri(key), ...sidecar };
  }

  /** A version's sidecar; for the "null" version, the current object's if it has no version id. */
  async #readVersion(
    key: string,
    versionId: string,
  ): Promise<(Omit<VersionSidecar, "versionId"> & Sidecar) | undefined> {
    if (versionId === NULL_VERSION) {
      const current = await this.#readSidecar(key);
      return current && current.versionId === undefined ? { key, ...current } : undefined;
    }
    return this.#versions.read(key, versionId);
  }

  #sidecarPath(key: string): string {
    return `${path.join(this.root, META_DIR, ...key.split("/"))}.json`;
  }

  async #readSidecar(key: string): Promise<Sidecar | undefined> {
    let bytes: Buffer | undefined;
    try {
      bytes = await readRegularFile(this.#sidecarPath(key));
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) {
        return undefined;
      }
      throw error;
    }
    if (bytes === undefined) {
      throw new Error("a directory store sidecar is not a regular file");
    }
    return JSON.parse(bytes.toString("utf8")) as Sidecar;
  }
}

/** Streams `body` into the new file `temp`, hashing it on the way (not flushed). */
async function writeHashing(
  body: Uint8Array | string | Readable,
  temp: string,
): Promise<HashedCopy<"sha256" | "md5">> {
  const hashing = new HashingStream(["sha256", "md5"]);
  const source = body instanceof Readable ? body : Readable.from([body]);
  await pipeline(source, hashing, createWriteStream(temp));
  return { bytes: hashing.bytes, hex: { sha256: hashing.hex("sha256"), md5: hashing.hex("md5") } };
}

/** The sidecar of a new version of `body`, hashed in memory. */
function sidecarOf(body: Uint8Array | string, options: PutOptions): Required<Sidecar> {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return {
    contentType: options.contentType,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    bytes: bytes.byteLength,
    etag: `"${createHash("md5").update(bytes).digest("hex")}"`,
    versionId: newVersionId(),
  };
}

/**
 * The file's `stat`, `undefined` when nothing is there: on this thread, as the store's reads open
 * and `fstat` theirs (see `IN_THREAD_BYTES`).
 */
function statOrMissing(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT", "ENOTDIR")) return undefined;
    throw error;
  }
}
