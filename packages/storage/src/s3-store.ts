import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from "@aws-sdk/client-s3";
import {
  isLocalFileBody,
  type ObjectBody,
  type ObjectStore,
  type ObjectVersion,
  type PutOptions,
  StoreAccessDenied,
  type StoredObject,
  type StoredVersion,
} from "@voxtrail/core";
import { HashingStream } from "./hashing-stream";
import { objectNotFound, objectReplaced } from "./object-errors";
import { assertValidKey } from "./object-key";

/** Options for {@link S3Store}. */
export interface S3StoreOptions {
  /** Client to send requests with (region, endpoint, credentials are its concern). */
  client: S3Client;
  bucket: string;
  /** Object Lock retention for each object written under some keys (the bucket must have Object Lock). */
  retention?: ObjectRetention | undefined;
}

/**
 * S3 Object Lock retention given per object, at write time: every object put under one of
 * `prefixes` is retained in `mode` for `days` (`ObjectLockMode`, `ObjectLockRetainUntilDate`;
 * the writer needs `s3:PutObjectRetention`). Objects under other keys get none.
 */
export interface ObjectRetention {
  prefixes: readonly string[];
  mode: "GOVERNANCE" | "COMPLIANCE";
  days: number;
  /** The clock retention is counted from; the system's by default. */
  now?: () => Date;
}

/**
 * Parses a retention setting `MODE:DAYS` (e.g. `COMPLIANCE:30`) for `prefixes`; `undefined` for
 * an empty setting. Throws a `RangeError` naming the expected form for anything else.
 *
 * @example
 * retentionFrom("GOVERNANCE:365", ["lineage/"]); // { prefixes: ["lineage/"], mode: "GOVERNANCE", days: 365 }
 */
export function retentionFrom(
  setting: string | undefined,
  prefixes: readonly string[],
): ObjectRetention | undefined {
  if (!setting) return undefined;
  const match = /^(GOVERNANCE|COMPLIANCE):([1-9][0-9]*)$/.exec(setting);
  if (!match) throw new RangeError("a retention setting is MODE:DAYS, MODE GOVERNANCE or COMPLIANCE");
  return { prefixes, mode: match[1] as ObjectRetention["mode"], days: Number(match[2]) };
}

/**
 * An `ObjectStore` on one S3 bucket.
 *
 * `put` with bytes or a string sends one PutObject carrying `ChecksumSHA256`, so S3 rejects a
 * body that arrives corrupted, and stores the hex sha256 as user metadata (`x-amz-meta-sha256`),
 * which `head` then reports. `put` with a Readable (or a local file, read as one) streams it
 * through `@aws-sdk/lib-storage`'s `Upload` (multipart above 5 MiB, memory bounded by the part
 * queue), hashing on the way: the returned `sha256` is exact, but it is not stored on the object
 * (metadata cannot be added after the upload without copying the object), so `head` leaves
 * `sha256` unset for streamed objects.
 * `head` also returns `undefined` for a missing bucket: a HEAD response has no body to tell the
 * two 404s apart. A 403 from `get` or `head` is never taken as absent: without `s3:ListBucket`, S3
 * answers 403 for a missing key as well as a forbidden one, so it is `StoreAccessDenied`, naming the
 * operation and the key's top-level prefix.
 *
 * @example
 * const store = new S3Store({ client: new S3Client({}), bucket: "voxtrail-audio" });
 * const stored = await store.put("incoming/call.wav", createReadStream("call.wav"), {
 *   contentType: "audio/wav",
 * });
 * stored.uri; // "s3://voxtrail-audio/incoming/call.wav"
 */
export class S3Store implements ObjectStore {
  readonly bucket: string;
  readonly #client: S3Client;
  readonly #retention: ObjectRetention | undefined;

  constructor({ client, bucket, retention }: S3StoreOptions) {
    this.#client = client;
    this.bucket = bucket;
    this.#retention = retention;
  }

  async put(key: string, body: ObjectBody, options: PutOptions): Promise<StoredObject> {
    try {
      assertValidKey(key);
    } catch (error) {
      if (body instanceof Readable) {
        body.destroy();
      }
      throw error;
    }
    if (isLocalFileBody(body)) {
      return this.#putStream(key, createReadStream(body.localFile), options);
    }
    if (body instanceof Readable) {
      return this.#putStream(key, body, options);
    }
    return this.#putBytes(key, typeof body === "string" ? Buffer.from(body, "utf8") : body, options);
  }

  /**
   * One PutObject with `If-None-Match: *`: S3 answers 412 when the key exists. A 409
   * (a concurrent conditional write to the same key was in progress) is retried, up to 3 times.
   */
  async putIfAbsent(
    key: string,
    body: Uint8Array | string,
    options: PutOptions,
  ): Promise<StoredObject | undefined> {
    assertValidKey(key);
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#putBytes(key, bytes, options, { IfNoneMatch: "*" });
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 412) return undefined;
        if (status !== 409 || attempt === 3) throw error;
      }
    }
  }

  /** With `version`: that version (`VersionId`), or the current object if its etag matches (`If-Match`). */
  async get(key: string, version?: ObjectVersion): Promise<Readable> {
    const output = await this.#read(key, version, "GetObject", (input) =>
      this.#client.send(new GetObjectCommand(input)),
    );
    if (output === undefined) throw objectNotFound("the bucket");
    if (!(output.Body instanceof Readable)) {
      throw new TypeError("S3 GetObject answered without a Node.js stream body");
    }
    return output.Body;
  }

  async getBytes(key: string, version?: ObjectVersion): Promise<Buffer> {
    return buffer(await this.get(key, version));
  }

  async head(key: string, version?: ObjectVersion): Promise<StoredObject | undefined> {
    const output = await this.#read(key, version, "HeadObject", (input) =>
      this.#client.send(new HeadObjectCommand(input)),
    );
    if (output === undefined) return undefined;
    return {
      key,
      uri: this.uri(key),
      bytes: output.ContentLength ?? 0,
      contentType: output.ContentType ?? "application/octet-stream",
      sha256: output.Metadata?.sha256,
      etag: output.ETag,
      versionId: output.VersionId,
      ...(output.Metadata?.language ? { language: output.Metadata.language } : {}),
    };
  }

  /**
   * One read of `key` (`GetObject` or `HeadObject`, sent by `send`) at `version`: `undefined` when
   * there is no such key or version, `ObjectChanged` when the etag no longer matches.
   */
  async #read<Output>(
    key: string,
    version: ObjectVersion | undefined,
    operation: "GetObject" | "HeadObject",
    send: (input: { Bucket: string; Key: string; VersionId?: string; IfMatch?: string }) => Promise<Output>,
  ): Promise<Output | undefined> {
    assertValidKey(key);
    try {
      return await send({ Bucket: this.bucket, Key: key, ...versionParameters(version) });
    } catch (error) {
      if (error instanceof NoSuchKey || error instanceof NotFound || isNamed(error, "NoSuchVersion")) {
        return undefined;
      }
      if (isPreconditionFailed(error)) throw objectReplaced();
      throw deniedOr(error, operation, key);
    }
  }

  /** Keys under `prefix` in S3's order, which is lexicographic by UTF-8 bytes. */
  async list(prefix: string): Promise<string[]> {
    return (await this.listModified(prefix)).map((object) => object.key);
  }

  /** ListObjectsV2, every page: each key with its `LastModified`. */
  async listModified(prefix: string): Promise<Array<{ key: string; lastModified: Date }>> {
    const objects: Array<{ key: string; lastModified: Date }> = [];
    const pages = paginateListObjectsV2({ client: this.#client }, { Bucket: this.bucket, Prefix: prefix });
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined) {
          objects.push({ key: object.Key, lastModified: object.LastModified ?? new Date() });
        }
      }
    }
    return objects;
  }

  /** In a versioned bucket a delete without `version` adds a delete marker; with it, `DeleteObject` of that `VersionId`. */
  async delete(key: string, version?: { versionId: string }): Promise<void> {
    assertValidKey(key);
    await this.#client.send(
      new DeleteObjectCommand({ Bucket: this.bucket, Key: key, VersionId: version?.versionId }),
    );
  }

  /** `ListObjectVersions` on the key as prefix, keeping the key's own versions (not its delete markers). */
  async versions(key: string): Promise<StoredVersion[]> {
    assertValidKey(key);
    const versions: StoredVersion[] = [];
    // The SDK has no paginator for this operation: pages follow the key and version-id markers.
    let markers: { KeyMarker?: string; VersionIdMarker?: string } = {};
    for (;;) {
      const page = await this.#client.send(
        new ListObjectVersionsCommand({ Bucket: this.bucket, Prefix: key, ...markers }),
      );
      for (const version of page.Versions ?? []) {
        if (version.Key !== key || version.VersionId === undefined) continue;
        versions.push({
          versionId: version.VersionId,
          ...(version.ETag ? { etag: version.ETag } : {}),
          bytes: version.Size ?? 0,
          latest: version.IsLatest === true,
        });
      }
      if (!page.IsTruncated) return versions;
      markers = { KeyMarker: page.NextKeyMarker, VersionIdMarker: page.NextVersionIdMarker };
    }
  }

  uri(key: string): string {
    assertValidKey(key);
    return `s3://${this.bucket}/${key}`;
  }

  /** The Object Lock parameters a put of `key` carries: none outside the retained prefixes. */
  #retentionOf(key: string): { ObjectLockMode?: ObjectRetention["mode"]; ObjectLockRetainUntilDate?: Date } {
    const retention = this.#retention;
    if (!retention?.prefixes.some((prefix) => key.startsWith(prefix))) return {};
    const from = (retention.now ?? (() => new Date()))().getTime();
    return {
      ObjectLockMode: retention.mode,
      ObjectLockRetainUntilDate: new Date(from + retention.days * 86_400_000),
    };
  }

  async #putBytes(
    key: string,
    body: Uint8Array,
    { contentType }: PutOptions,
    condition: { IfNoneMatch?: string } = {},
  ): Promise<StoredObject> {
    const digest = createHash("sha256").update(body).digest();
    const sha256 = digest.toString("hex");
    const output = await this.#client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        // The algorithm header as well as the value: moto 5.2 ignores a bare x-amz-checksum-sha256.
        ChecksumAlgorithm: "SHA256",
        ChecksumSHA256: digest.toString("base64"),
        Metadata: { sha256 },
        ...this.#retentionOf(key),
        ...condition,
      }),
    );
    return {
      key,
      uri: this.uri(key),
      bytes: body.byteLength,
      contentType,
      sha256,
      etag: output.ETag,
      versionId: output.VersionId,
    };
  }

  async #putStream(key: string, body: Readable, { contentType }: PutOptions): Promise<StoredObject> {
    // Loaded on the first streamed put: the functions that never stream do not evaluate it.
    const { Upload } = await import("@aws-sdk/lib-storage");
    const hashing = new HashingStream(["sha256"]);
    const upload = new Upload({
      client: this.#client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: hashing,
        ContentType: contentType,
        ...this.#retentionOf(key),
      },
    });
    // A body error reaches the upload through the hashing stream, and a failed upload closes that
    // stream, which ends the pipeline: both settle, the upload's outcome is the put's (with any
    // multipart upload already aborted), and once it succeeds the stream has ended and been hashed.
    const [uploaded] = await Promise.allSettled([upload.done(), pipeline(body, hashing)]);
    if (uploaded.status === "rejected") {
      throw uploaded.reason;
    }
    const output = uploaded.value;
    return {
      key,
      uri: this.uri(key),
      bytes: hashing.bytes,
      contentType,
      sha256: hashing.hex("sha256"),
      etag: output.ETag,
      versionId: output.VersionId,
    };
  }
}

/** A 403 answer as `StoreAccessDenied` (HEAD's has no body, so only the status tells); anything else as it is. */
function deniedOr(error: unknown, operation: string, key: string): unknown {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return status === 403 ? StoreAccessDenied.forRead(operation, key, { cause: error }) : error;
}

/** The request parameters that read exactly `version`: its id, else `If-Match` on its etag. */
function versionParameters(version: ObjectVersion | undefined): { VersionId?: string; IfMatch?: string } {
  if (version?.versionId) return { VersionId: version.versionId };
  if (version?.etag) return { IfMatch: `"${version.etag.replaceAll('"', "")}"` };
  return {};
}

function isNamed(error: unknown, name: string): boolean {
  return (error as { name?: unknown } | undefined)?.name === name;
}

/** S3's answer to a failed `If-Match`: 412 PreconditionFailed (HEAD's has no body, only the status). */
function isPreconditionFailed(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  return status === 412 || isNamed(error, "PreconditionFailed");
}
