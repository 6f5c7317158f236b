import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import type { ObjectStore } from "@voxtrail/core";
import { beforeAll, describe, expect, it } from "vitest";

const MiB = 1024 * 1024;

/** Keys every store must refuse with `InvalidKey`. */
const INVALID_KEYS: Record<string, string> = {
  "parent segment": "../x",
  "parent segments in the middle": "a/../../b",
  "current segment": "a/./b",
  "absolute path": "/abs",
  "empty segment": "a//b",
  "trailing slash": "a/",
  empty: "",
  "NUL character": "a\u0000b",
  "control character": "a\u001fb",
  backslash: "a\\b",
  "unpaired surrogate": "a\uD800b",
  "more than 1024 bytes": `${"é".repeat(512)}x`,
};

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Chunks of random bytes totalling `size`, handed out as a Readable. */
function randomChunks(size: number, chunkSize = MiB): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < size; offset += chunkSize) {
    chunks.push(randomBytes(Math.min(chunkSize, size - offset)));
  }
  return chunks;
}

/** A Readable that yields `chunks` and then fails with `message`. */
function failingStream(chunks: Buffer[], message: string): Readable {
  return Readable.from(
    (async function* () {
      yield* chunks;
      throw new Error(message);
    })(),
  );
}

/** Makes keys under a prefix of their own (`key("")` is the prefix), so tests can share a store. */
function scopedKeys(): (suffix: string) => string {
  const prefix = `contract-${randomUUID()}/`;
  return (suffix) => prefix + suffix;
}

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * Registers the tests every `ObjectStore` must pass. `makeStore` is called once for the suite;
 * each test works under a random prefix of its own.
 */
export function describeObjectStoreContract(name: string, makeStore: () => Promise<ObjectStore>): void {
  describe(`${name} (ObjectStore contract)`, () => {
    let store: ObjectStore;

    beforeAll(async () => {
      store = await makeStore();
    });

    it("reads the object an etag names while it is current, and refuses with ObjectChanged once replaced", async () => {
      const key = scopedKeys();
      const first = await store.put(key("named.txt"), "first caller", { contentType: "text/plain" });
      const named = { etag: (first.etag ?? "").replaceAll('"', "") };
      expect((await store.getBytes(key("named.txt"), named)).toString()).toBe("first caller");
      expect(await store.head(key("named.txt"), named)).toMatchObject({ bytes: 12 });
      await store.put(key("named.txt"), "second caller", { contentType: "text/plain" });
      await expect(store.getBytes(key("named.txt"), named)).rejects.toMatchObject({ name: "ObjectChanged" });
      await expect(store.get(key("named.txt"), named)).rejects.toMatchObject({ name: "ObjectChanged" });
      await expect(store.head(key("named.txt"), named)).rejects.toMatchObject({ name: "ObjectChanged" });
      // A version that names nothing is the current object.
      expect((await store.getBytes(key("named.txt"), {})).toString()).toBe("second caller");
    });

    it("round-trips a Uint8Array body and reports its hash, size and uri", async () => {
      const key = scopedKeys();
      const body = new Uint8Array(256).map((_, index) => index);
      const stored = await store.put(key("bytes.bin"), body, { contentType: "application/octet-stream" });
      expect(stored).toMatchObject({
        key: key("bytes.bin"),
        uri: store.uri(key("bytes.bin")),
        bytes: 256,
        contentType: "application/octet-stream",
        sha256: sha256(body),
      });
      expect(await store.getBytes(key("bytes.bin"))).toEqual(Buffer.from(body));
      expect(await buffer(await store.get(key("bytes.bin")))).toEqual(Buffer.from(body));
    });

    it("round-trips a string body as UTF-8", async () => {
      const key = scopedKeys();
      const text = '{"greeting":"grüß dich, 世界 🎧"}';
      const stored = await store.put(key("doc.json"), text, { contentType: "application/json" });
      expect(stored.bytes).toBe(Buffer.byteLength(text));
      expect(stored.sha256).toBe(sha256(Buffer.from(text)));
      expect((await store.getBytes(key("doc.json"))).toString("utf8")).toBe(text);
    });

    it("stores an empty body", async () => {
      const key = scopedKeys();
      const stored = await store.put(key("empty"), "", { contentType: "text/plain" });
      expect(stored).toMatchObject({ bytes: 0, sha256: sha256(new Uint8Array()) });
      expect(await store.getBytes(key("empty"))).toEqual(Buffer.alloc(0));
      expect(await store.head(key("empty"))).toMatchObject({ bytes: 0, contentType: "text/plain" });
    });

    it("round-trips a small Readable body of mixed chunks", async () => {
      const key = scopedKeys();
      const stored = await store.put(key("small"), Readable.from(["abc", Buffer.from("def")]), {
        contentType: "text/plain",
      });
      expect(stored).toMatchObject({ bytes: 6, sha256: sha256(Buffer.from("abcdef")) });
      expect((await store.getBytes(key("small"))).toString()).toBe("abcdef");
    });

    it("streams a 12 MiB Readable body in and out", async () => {
      const key = scopedKeys();
      const chunks = randomChunks(12 * MiB);
      const whole = Buffer.concat(chunks);
      const stored = await store.put(key("large.wav"), Readable.from(chunks), { contentType: "audio/wav" });
      expect(stored).toMatchObject({ bytes: 12 * MiB, sha256: sha256(whole), contentType: "audio/wav" });

      const hash = createHash("sha256");
      let bytes = 0;
      for await (const chunk of await store.get(key("large.wav"))) {
        hash.update(chunk);
        bytes += chunk.length;
      }
      expect(bytes).toBe(12 * MiB);
      expect(hash.digest("hex")).toBe(sha256(whole));
      expect(await store.head(key("large.wav"))).toMatchObject({ bytes: 12 * MiB, contentType: "audio/wav" });
    });

    it("stores a local file body, which it reads itself, with the file's bytes and sha256", async () => {
      const key = scopedKeys();
      // Past 5 MiB (a multipart upload to S3) and not a whole number of 64 KiB copy buffers.
      const whole = Buffer.concat(randomChunks(6 * MiB + 12_345));
      const directory = await mkdtemp(join(tmpdir(), "voxtrail-contract-"));
      try {
        await writeFile(join(directory, "reply.wav"), whole);
        const stored = await store.put(
          key("reply.wav"),
          { localFile: join(directory, "reply.wav") },
          { contentType: "audio/wav" },
        );
        expect(stored).toMatchObject({
          bytes: whole.length,
          sha256: sha256(whole),
          contentType: "audio/wav",
        });
        expect((await store.getBytes(key("reply.wav"))).equals(whole)).toBe(true);
        expect(await store.head(key("reply.wav"))).toMatchObject({ bytes: whole.length, etag: stored.etag });
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    });

    it("a local file body that is missing rejects and leaves no object under a new key", async () => {
      const key = scopedKeys();
      const missing = join(tmpdir(), `voxtrail-contract-missing-${randomUUID()}.wav`);
      await expect(
        store.put(key("new"), { localFile: missing }, { contentType: "audio/wav" }),
      ).rejects.toMatchObject({ code: "ENOENT" });
      expect(await store.head(key("new"))).toBeUndefined();
      expect(await store.list(key(""))).toEqual([]);
    });

    it("describes an object with head: content type, size, sha256, etag, uri", async () => {
      const key = scopedKeys();
      const body = Buffer.from("RIFF....WAVE");
      const stored = await store.put(key("call.wav"), body, { contentType: "audio/wav" });
      expect(await store.head(key("call.wav"))).toMatchObject({
        key: key("call.wav"),
        uri: store.uri(key("call.wav")),
        bytes: body.length,
        contentType: "audio/wav",
        sha256: sha256(body),
        etag: stored.etag,
      });
    });

    it("head of a streamed object reports the sha256 only if it is the right one", async () => {
      const key = scopedKeys();
      const stored = await store.put(key("s"), Readable.from([Buffer.from("streamed")]), {
        contentType: "text/plain",
      });
      const head = await store.head(key("s"));
      expect(head).toMatchObject({ bytes: 8, contentType: "text/plain", etag: stored.etag });
      expect([undefined, sha256(Buffer.from("streamed"))]).toContain(head?.sha256);
    });

    it("head of a missing key is undefined", async () => {
      const key = scopedKeys();
      expect(await store.head(key("missing"))).toBeUndefined();
    });

    it("get and getBytes of a missing key reject with ObjectNotFound", async () => {
      const key = scopedKeys();
      await expect(store.get(key("missing"))).rejects.toMatchObject({ name: "ObjectNotFound" });
      await expect(store.getBytes(key("missing"))).rejects.toMatchObject({ name: "ObjectNotFound" });
    });

    it("a key that is only a prefix of other keys is not an object", async () => {
      const key = scopedKeys();
      await store.put(key("dir/inner"), "x", { contentType: "text/plain" });
      expect(await store.head(key("dir"))).toBeUndefined();
      await expect(store.get(key("dir"))).rejects.toMatchObject({ name: "ObjectNotFound" });
    });

    it("overwriting replaces body and metadata", async () => {
      const key = scopedKeys();
      await store.put(key("k"), "first version, longer", { contentType: "text/plain" });
      const second = await store.put(key("k"), Buffer.from([1, 2, 3]), { contentType: "application/x-test" });
      expect(await store.getBytes(key("k"))).toEqual(Buffer.from([1, 2, 3]));
      expect(await store.head(key("k"))).toMatchObject({
        bytes: 3,
        contentType: "application/x-test",
        sha256: sha256(Buffer.from([1, 2, 3])),
        etag: second.etag,
      });
    });

    it("a Readable body that fails mid-way rejects and leaves the previous object intact", async () => {
      const key = scopedKeys();
      await store.put(key("k"), "old content", { contentType: "text/plain" });
      // Past 5 MiB, so the S3 store has begun a multipart upload that it must abort.
      const body = failingStream(randomChunks(6 * MiB), "source broke");
      await expect(store.put(key("k"), body, { contentType: "audio/wav" })).rejects.toThrow("source broke");
      expect((await store.getBytes(key("k"))).toString()).toBe("old content");
      expect(await store.head(key("k"))).toMatchObject({ bytes: 11, contentType: "text/plain" });
      expect(await store.list(key(""))).toEqual([key("k")]);
    });

    it("a Readable body that fails leaves no object under a new key", async () => {
      const key = scopedKeys();
      await expect(
        store.put(key("new"), failingStream([Buffer.from("partial")], "source broke"), {
          contentType: "text/plain",
        }),
      ).rejects.toThrow("source broke");
      expect(await store.head(key("new"))).toBeUndefined();
      expect(await store.list(key(""))).toEqual([]);
    });

    it("putIfAbsent writes a new key and reports it like put", async () => {
      const key = scopedKeys();
      const stored = await store.putIfAbsent(key("a.json"), '{"run":1}', { contentType: "application/json" });
      expect(stored).toMatchObject({
        key: key("a.json"),
        bytes: 9,
        contentType: "application/json",
        sha256: sha256(Buffer.from('{"run":1}')),
      });
      expect((await store.getBytes(key("a.json"))).toString()).toBe('{"run":1}');
    });

    it("putIfAbsent leaves an existing object alone and says so", async () => {
      const key = scopedKeys()("b.json");
      await store.put(key, "first", { contentType: "text/plain" });
      expect(await store.putIfAbsent(key, "second", { contentType: "application/json" })).toBeUndefined();
      expect((await store.getBytes(key)).toString()).toBe("first");
      expect((await store.head(key))?.contentType).toBe("text/plain");
    });

    it("putIfAbsent: of concurrent callers exactly one wins", async () => {
      const key = scopedKeys()("c.json");
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store.putIfAbsent(key, `writer ${index}`, { contentType: "text/plain" }),
        ),
      );
      const winners = results.filter((result) => result !== undefined);
      expect(winners).toHaveLength(1);
      expect((await store.getBytes(key)).toString()).toBe(
        `writer ${results.findIndex((result) => result !== undefined)}`,
      );
    });

    it("lists keys under a prefix in UTF-8 byte order, excluding other prefixes", async () => {
      const key = scopedKeys();
      const prefix = key("");
      const inside = ["b", "a.txt", "a/c", "a/b/d", "é", "😀", "\uFF21", "Z"].map(key);
      const outside = [`${prefix.slice(0, -1)}-sibling/a`, `other-${randomUUID()}/a`];
      for (const each of [...inside, ...outside]) {
        await store.put(each, each, { contentType: "text/plain" });
      }
      const expected = [...inside].sort(byUtf8);
      expect(await store.list(prefix)).toEqual(expected);
      expect(await store.list(key("a"))).toEqual([key("a.txt"), key("a/b/d"), key("a/c")]);
      expect(await store.list(key("a/"))).toEqual([key("a/b/d"), key("a/c")]);
      expect(await store.list(key("nothing-here/"))).toEqual([]);
      expect(await store.list("")).toEqual(expect.arrayContaining([...inside, ...outside]));
    });

    it("delete removes the object; deleting a missing key is fine", async () => {
      const key = scopedKeys();
      await store.put(key("gone/deep/x"), "x", { contentType: "text/plain" });
      await store.delete(key("gone/deep/x"));
      expect(await store.head(key("gone/deep/x"))).toBeUndefined();
      await expect(store.get(key("gone/deep/x"))).rejects.toMatchObject({ name: "ObjectNotFound" });
      expect(await store.list(key(""))).toEqual([]);
      await expect(store.delete(key("gone/deep/x"))).resolves.toBeUndefined();
      await expect(store.delete(key("never"))).resolves.toBeUndefined();
    });

    it("keeps every version: each put has its id, and an id reads that version whatever came after", async () => {
      const key = scopedKeys();
      const first = await store.put(key("x.wav"), "first caller", { contentType: "text/plain" });
      const second = await store.put(key("x.wav"), "second caller", { contentType: "text/plain" });
      expect(first.versionId).toEqual(expect.any(String));
      expect(second.versionId).not.toBe(first.versionId);
      const versions = await store.versions(key("x.wav"));
      expect(versions.map((version) => [version.versionId, version.latest, version.bytes])).toEqual([
        [second.versionId, true, 13],
        [first.versionId, false, 12],
      ]);
      const named = { versionId: first.versionId as string };
      expect((await store.getBytes(key("x.wav"), named)).toString()).toBe("first caller");
      expect((await buffer(await store.get(key("x.wav"), named))).toString()).toBe("first caller");
      expect(await store.head(key("x.wav"), named)).toMatchObject({ bytes: 12, etag: first.etag });
      expect(await store.versions(key("never-written"))).toEqual([]);
      // Another key that merely starts with this one is not one of its versions.
      await store.put(key("x.wav.bak"), "other", { contentType: "text/plain" });
      expect(await store.versions(key("x.wav"))).toHaveLength(2);
    });

    it("a plain delete hides the key and keeps its versions; a delete by id removes that version for good", async () => {
      const key = scopedKeys();
      const first = await store.put(key("x.wav"), "first caller", { contentType: "text/plain" });
      const second = await store.put(key("x.wav"), "second caller", { contentType: "text/plain" });
      await store.delete(key("x.wav"));
      expect(await store.head(key("x.wav"))).toBeUndefined();
      expect(await store.list(key(""))).toEqual([]);
      expect(await store.versions(key("x.wav"))).toHaveLength(2);
      await store.delete(key("x.wav"), { versionId: first.versionId as string });
      await expect(store.getBytes(key("x.wav"), { versionId: first.versionId })).rejects.toMatchObject({
        name: "ObjectNotFound",
      });
      expect((await store.versions(key("x.wav"))).map((version) => version.versionId)).toEqual([
        second.versionId,
      ]);
      await store.delete(key("x.wav"), { versionId: second.versionId as string });
      expect(await store.versions(key("x.wav"))).toEqual([]);
    });

    it("deleting the current version by id makes the newest remaining one current", async () => {
      const key = scopedKeys();
      const first = await store.put(key("x.wav"), "first caller", { contentType: "text/plain" });
      const second = await store.put(key("x.wav"), "second caller", { contentType: "text/plain" });
      await store.delete(key("x.wav"), { versionId: second.versionId as string });
      expect((await store.getBytes(key("x.wav"))).toString()).toBe("first caller");
      expect(await store.head(key("x.wav"))).toMatchObject({ versionId: first.versionId, bytes: 12 });
      expect(await store.versions(key("x.wav"))).toEqual([
        expect.objectContaining({ versionId: first.versionId, latest: true }),
      ]);
    });

    it("a deleted key's prefix can become a key", async () => {
      const key = scopedKeys();
      await store.put(key("a/b"), "x", { contentType: "text/plain" });
      await store.delete(key("a/b"));
      await store.put(key("a"), "y", { contentType: "text/plain" });
      expect((await store.getBytes(key("a"))).toString()).toBe("y");
    });

    it("keys with spaces and Unicode work", async () => {
      const key = scopedKeys();
      const unicodeKey = key("voicemail inbox/Zoë Müller 名前 🎧 (1).wav");
      await store.put(unicodeKey, "audio", { contentType: "audio/wav" });
      expect((await store.getBytes(unicodeKey)).toString()).toBe("audio");
      expect(await store.head(unicodeKey)).toMatchObject({ key: unicodeKey, bytes: 5 });
      expect(await store.list(key("voicemail inbox/"))).toEqual([unicodeKey]);
      await store.delete(unicodeKey);
      expect(await store.head(unicodeKey)).toBeUndefined();
    });

    it("uri is a URL whose path ends with the key", async () => {
      const key = scopedKeys();
      const unicodeKey = key("with space/ü.wav");
      const uri = store.uri(unicodeKey);
      expect(["s3:", "file:"]).toContain(new URL(uri).protocol);
      expect(decodeURIComponent(new URL(uri).pathname).endsWith(`/${unicodeKey}`)).toBe(true);
      expect((await store.put(unicodeKey, "x", { contentType: "text/plain" })).uri).toBe(uri);
    });

    describe.each(Object.entries(INVALID_KEYS))("refuses an invalid key (%s)", (_rule, invalidKey) => {
      it("in put, get, getBytes, head, delete and uri, with InvalidKey", async () => {
        const invalidKeyError = { name: "InvalidKey" };
        await expect(store.put(invalidKey, "x", { contentType: "text/plain" })).rejects.toMatchObject(
          invalidKeyError,
        );
        await expect(store.get(invalidKey)).rejects.toMatchObject(invalidKeyError);
        await expect(store.getBytes(invalidKey)).rejects.toMatchObject(invalidKeyError);
        await expect(store.head(invalidKey)).rejects.toMatchObject(invalidKeyError);
        await expect(store.delete(invalidKey)).rejects.toMatchObject(invalidKeyError);
        expect(() => store.uri(invalidKey)).toThrow(expect.objectContaining(invalidKeyError));
      });

      it("and destroys a Readable body it refuses", async () => {
        const body = Readable.from([Buffer.from("x")]);
        await expect(store.put(invalidKey, body, { contentType: "text/plain" })).rejects.toMatchObject({
          name: "InvalidKey",
        });
        expect(body.destroyed).toBe(true);
      });
    });

    it("InvalidKey messages do not repeat the key", async () => {
      const secretKey = "caller-555-0100/../x";
      await expect(store.head(secretKey)).rejects.toSatisfy(
        (error: Error) => !error.message.includes("555-0100"),
      );
    });
  });
}
