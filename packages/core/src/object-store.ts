import type { Readable } from "node:stream";

/** What a store knows about one object after writing or inspecting it. */
export interface StoredObject {
  key: string;
  /** `s3://bucket/key` for S3, `file:///abs/path` for the directory store. */
  uri: string;
  bytes: number;
  contentType: string;
  /** Hex sha256 of the body; always set by `put`, set by `head` when the writer recorded it. */
  sha256?: string;
  etag?: string;
  versionId?: string;
  /**
   * The call language the uploader named in the object's metadata (S3 `x-amz-meta-language`, e.g.
   * `es-US`), when `head` finds one: a tag, never caller data.
   */
  language?: string;
}

/**
 * Which object under a key to read: the one an S3 event named. A version id (a versioned bucket)
 * names it exactly, whatever was written over it since; otherwise the etag is a condition on the
 * current object (S3's `If-Match`).
 */
export interface ObjectVersion {
  versionId?: string | undefined;
  /** Quoted or not: compared without quotes. */
  etag?: string | undefined;
}

/**
 * One stored version of a key. Both stores keep versions, as the stacks' buckets do (versioning
 * is on in every stage): a write makes a new version, a plain delete hides the key (S3's delete
 * marker) and only a delete by version id removes bytes for good.
 */
export interface StoredVersion {
  versionId: string;
  etag?: string;
  bytes: number;
  /** The version `get(key)` reads now. */
  latest: boolean;
}

/**
 * A body that is a file on this machine, named by its path (a reply spooled to local disk): the
 * store reads the file itself while it writes the object, so no stream of fresh buffers is made
 * for it. The file must not change until `put` resolves.
 */
export interface LocalFileBody {
  readonly localFile: string;
}

/** What `ObjectStore.put` writes: bytes, a string (as UTF-8), a Readable (streamed) or a local file. */
export type ObjectBody = Uint8Array | string | Readable | LocalFileBody;

/** Whether `body` names a local file rather than holding or streaming the bytes. */
export function isLocalFileBody(body: ObjectBody): body is LocalFileBody {
  return typeof body === "object" && "localFile" in body;
}

/** Options for `ObjectStore.put`. */
export interface PutOptions {
  contentType: string;
}

/**
 * One object-store interface with two implementations (S3 in Lambda, a directory locally); both
 * pass the same contract test suite.
 */
export interface ObjectStore {
  /** The bucket name (the directory store names its root's bucket too). */
  readonly bucket: string;
  /** Writes the whole body and returns its hash, size and uri; a Readable or a local file is streamed. */
  put(key: string, body: ObjectBody, options: PutOptions): Promise<StoredObject>;
  /**
   * Writes a small body only if no object exists under `key`, atomically: of concurrent callers
   * exactly one succeeds (S3's conditional `If-None-Match: *`). Resolves to `undefined`, writing
   * nothing, when the key is taken.
   */
  putIfAbsent(key: string, body: Uint8Array | string, options: PutOptions): Promise<StoredObject | undefined>;
  /**
   * Streams the body; rejects with `ObjectNotFound` when there is none. With `version`, exactly
   * that object (its version id, or the current object only if its etag still matches), or
   * `ObjectChanged`.
   */
  get(key: string, version?: ObjectVersion): Promise<Readable>;
  /** Reads the whole body into memory: for small objects (JSON documents, short audio). */
  getBytes(key: string, version?: ObjectVersion): Promise<Buffer>;
  /** Describes the object (of `version`, as `get` reads it), or `undefined` when there is none. */
  head(key: string, version?: ObjectVersion): Promise<StoredObject | undefined>;
  /** Keys under `prefix`, in lexicographic order. */
  list(prefix: string): Promise<string[]>;
  /**
   * Keys under `prefix` with when each current object was last written, as the store's own
   * listing gives it (S3's ListObjectsV2): for a reader that skips what it saw before without a
   * request per key. A store whose listing has no times leaves it out.
   */
  listModified?(prefix: string): Promise<Array<{ key: string; lastModified: Date }>>;
  /**
   * Deletes the object; deleting a missing key is not an error. Without `version` the key is only
   * hidden (its versions remain, as behind S3's delete marker); with a version id that version is
   * removed for good, and if it was the latest the newest remaining one becomes current.
   */
  delete(key: string, version?: { versionId: string }): Promise<void>;
  /** Every version kept under exactly `key`, newest first; none for a key never written. */
  versions(key: string): Promise<StoredVersion[]>;
  /** The uri an object under `key` has or would have. */
  uri(key: string): string;
}
