import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { DirectoryStore } from "../src/index";
import { describeObjectStoreContract } from "./object-store-contract";

const temporaryDirectories: string[] = [];

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), "voxtrail-storage-"));
  temporaryDirectories.push(directory);
  return directory;
}

afterAll(async () => {
  await Promise.all(temporaryDirectories.map((directory) => rm(directory, { recursive: true, force: true })));
});

describeObjectStoreContract(
  "DirectoryStore",
  async () => new DirectoryStore({ root: await temporaryDirectory() }),
);

// A scratch store skips only the flushes to disk: it keeps every promise of the contract.
describeObjectStoreContract(
  "DirectoryStore (not durable)",
  async () => new DirectoryStore({ root: await temporaryDirectory(), durable: false }),
);

describe("DirectoryStore", () => {
  let root: string;
  let store: DirectoryStore;

  beforeEach(async () => {
    root = await temporaryDirectory();
    store = new DirectoryStore({ root });
  });

  it("names its bucket voxtrail-local unless told otherwise", () => {
    expect(store.bucket).toBe("voxtrail-local");
    expect(new DirectoryStore({ root, bucket: "audio" }).bucket).toBe("audio");
  });

  it("creates a missing root on first use", async () => {
    const nested = new DirectoryStore({ root: path.join(root, "not", "yet") });
    expect(await nested.list("")).toEqual([]);
    await nested.put("k", "v", { contentType: "text/plain" });
    expect(await readFile(path.join(root, "not", "yet", "k"), "utf8")).toBe("v");
  });

  it("keeps the body at <root>/<key> and a sidecar at <root>/.meta/<key>.json", async () => {
    const body = Buffer.from("hello");
    await store.put("incoming/a.txt", body, { contentType: "text/plain" });
    expect(await readFile(path.join(root, "incoming", "a.txt"), "utf8")).toBe("hello");
    const sidecar = JSON.parse(await readFile(path.join(root, ".meta", "incoming", "a.txt.json"), "utf8"));
    expect(sidecar).toEqual({
      key: "incoming/a.txt",
      contentType: "text/plain",
      sha256: createHash("sha256").update(body).digest("hex"),
      bytes: 5,
      etag: `"${createHash("md5").update(body).digest("hex")}"`,
      versionId: expect.stringMatching(/^[0-9a-z]{9}\.[0-9a-z]{4}\.[0-9a-f]{16}$/),
    });
    expect(await store.list("")).toEqual(["incoming/a.txt"]);
  });

  it("writes the key's sidecar and its version's as one file, and a later put replaces only the key's", async () => {
    const first = await store.put("incoming/c.txt", "one", { contentType: "text/plain" });
    const sidecarFile = path.join(root, ".meta", "incoming", "c.txt.json");
    const [directory] = await readdir(path.join(root, ".versions"));
    const versionSidecar = (id: string | undefined) =>
      path.join(root, ".versions", directory as string, `${id}.json`);
    expect((await stat(sidecarFile)).ino).toBe((await stat(versionSidecar(first.versionId))).ino);
    const second = await store.put("incoming/c.txt", "two", { contentType: "text/plain" });
    expect((await stat(sidecarFile)).ino).toBe((await stat(versionSidecar(second.versionId))).ino);
    expect(JSON.parse(await readFile(versionSidecar(first.versionId), "utf8"))).toMatchObject({
      key: "incoming/c.txt",
      versionId: first.versionId,
      bytes: 3,
    });
    expect(await store.head("incoming/c.txt", { versionId: first.versionId as string })).toMatchObject({
      etag: first.etag,
    });
  });

  it("keeps each version as a hard link under .versions/, not a copy, and lists no key there", async () => {
    const stored = await store.put("incoming/b.txt", "hello", { contentType: "text/plain" });
    const [directory] = await readdir(path.join(root, ".versions"));
    const body = path.join(root, ".versions", directory as string, stored.versionId as string);
    expect((await stat(body)).ino).toBe((await stat(path.join(root, "incoming", "b.txt"))).ino);
    expect(await store.list("")).toEqual(["incoming/b.txt"]);
    await expect(store.put(".versions/x", "v", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "InvalidKey",
    });
  });

  it("reads an object written before versions were kept as S3's 'null' version", async () => {
    await mkdir(path.join(root, "old"), { recursive: true });
    await writeFile(path.join(root, "old", "a.txt"), "legacy");
    await mkdir(path.join(root, ".meta", "old"), { recursive: true });
    await writeFile(
      path.join(root, ".meta", "old", "a.txt.json"),
      JSON.stringify({ contentType: "text/plain", sha256: "x", bytes: 6, etag: '"e"' }),
    );
    expect(await store.versions("old/a.txt")).toEqual([
      { versionId: "null", etag: '"e"', bytes: 6, latest: true },
    ]);
    expect((await store.getBytes("old/a.txt", { versionId: "null" })).toString()).toBe("legacy");
    await store.put("old/a.txt", "new", { contentType: "text/plain" });
    await store.delete("old/a.txt", { versionId: "null" });
    expect((await store.getBytes("old/a.txt")).toString()).toBe("new");
  });

  it("uri is the file URL of <root>/<key>", () => {
    const uri = store.uri("a b/ü.wav");
    expect(uri).toBe(pathToFileURL(path.join(root, "a b", "ü.wav")).href);
    expect(fileURLToPath(uri)).toBe(path.join(root, "a b", "ü.wav"));
  });

  it("refuses keys under the reserved .meta/ prefix", async () => {
    await expect(store.put(".meta/x", "x", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "InvalidKey",
      message: expect.stringContaining(".meta/"),
    });
    await expect(store.put(".meta", "x", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "InvalidKey",
    });
    await expect(store.list(".meta/")).rejects.toMatchObject({ name: "InvalidKey" });
    // Only the top-level .meta is reserved.
    await store.put("a/.meta/x", "x", { contentType: "text/plain" });
    expect(await store.list("a/")).toEqual(["a/.meta/x"]);
  });

  it("refuses list prefixes that would leave the root", async () => {
    await expect(store.list("../")).rejects.toMatchObject({ name: "InvalidKey" });
    await expect(store.list("a/../../")).rejects.toMatchObject({ name: "InvalidKey" });
  });

  it("refuses key segments longer than a file name can be", async () => {
    await expect(store.put(`a/${"x".repeat(251)}`, "x", { contentType: "text/plain" })).rejects.toMatchObject(
      {
        name: "InvalidKey",
      },
    );
    await store.put(`a/${"x".repeat(250)}`, "x", { contentType: "text/plain" });
  });

  it("refuses a key that goes through a symlink pointing outside the root", async () => {
    const outside = await temporaryDirectory();
    await writeFile(path.join(outside, "secret"), "outside data");
    await symlink(outside, path.join(root, "escape"));
    await symlink(path.join(outside, "secret"), path.join(root, "leak"));

    const refused = { name: "InvalidKey" };
    await expect(store.put("escape/new", "x", { contentType: "text/plain" })).rejects.toMatchObject(refused);
    await expect(store.put("escape/sub/new", "x", { contentType: "text/plain" })).rejects.toMatchObject(
      refused,
    );
    await expect(store.get("escape/secret")).rejects.toMatchObject(refused);
    await expect(store.get("leak")).rejects.toMatchObject(refused);
    await expect(store.head("leak")).rejects.toMatchObject(refused);
    await expect(store.delete("escape/secret")).rejects.toMatchObject(refused);
    await expect(store.list("escape/")).rejects.toMatchObject(refused);
    expect(await store.list("")).toEqual([]);
    expect(await readdir(outside)).toEqual(["secret"]);
    expect(await readFile(path.join(outside, "secret"), "utf8")).toBe("outside data");
  });

  it("follows a symlink that stays inside the root", async () => {
    await mkdir(path.join(root, "real"));
    await symlink(path.join(root, "real"), path.join(root, "alias"));
    await store.put("alias/x", "x", { contentType: "text/plain" });
    expect(await readFile(path.join(root, "real", "x"), "utf8")).toBe("x");
  });

  it("works when the root itself is reached through a symlink", async () => {
    const target = await temporaryDirectory();
    const link = path.join(root, "linked-root");
    await symlink(target, link);
    const linked = new DirectoryStore({ root: link });
    await linked.put("k", "v", { contentType: "text/plain" });
    expect(await readFile(path.join(target, "k"), "utf8")).toBe("v");
  });

  it("refuses a key that is also a prefix of another key", async () => {
    await store.put("a", "x", { contentType: "text/plain" });
    await expect(store.put("a/b", "y", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "InvalidKey",
    });
    await store.put("c/d", "x", { contentType: "text/plain" });
    await expect(store.put("c", "y", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "InvalidKey",
    });
    expect(await store.list("")).toEqual(["a", "c/d"]);
  });

  it("refuses keys that would look like its temporary files", async () => {
    await expect(store.put("a/.voxtrail-tmp-1", "x", { contentType: "text/plain" })).rejects.toMatchObject({
      name: "InvalidKey",
    });
  });

  it("a failed streamed write leaves neither a partial file nor a temporary file", async () => {
    await store.put("calls/k.wav", "old", { contentType: "audio/wav" });
    const failing = Readable.from(
      (async function* () {
        yield Buffer.alloc(64 * 1024, 1);
        throw new Error("source broke");
      })(),
    );
    await expect(store.put("calls/k.wav", failing, { contentType: "audio/wav" })).rejects.toThrow(
      "source broke",
    );
    expect(await readdir(path.join(root, "calls"))).toEqual(["k.wav"]);
    expect(await readFile(path.join(root, "calls", "k.wav"), "utf8")).toBe("old");
    expect(await store.head("calls/k.wav")).toMatchObject({ bytes: 3, contentType: "audio/wav" });
  });

  it("stores a local file body of under 1 MiB (copied on this thread) with its bytes and hashes", async () => {
    const whole = Buffer.from(Array.from({ length: 3 * 64 * 1024 + 17 }, (_, i) => (i * 31) % 256));
    const source = path.join(await temporaryDirectory(), "reply.wav");
    await writeFile(source, whole);
    const stored = await store.put("calls/small.wav", { localFile: source }, { contentType: "audio/wav" });
    expect(stored).toMatchObject({
      bytes: whole.length,
      sha256: createHash("sha256").update(whole).digest("hex"),
      etag: `"${createHash("md5").update(whole).digest("hex")}"`,
    });
    expect((await readFile(path.join(root, "calls", "small.wav"))).equals(whole)).toBe(true);
    expect(await readdir(path.join(root, "calls"))).toEqual(["small.wav"]);
  });

  it("a local file body that fails to read leaves neither a partial file nor a temporary file", async () => {
    await store.put("calls/k.wav", "old", { contentType: "audio/wav" });
    // A directory opens, and its first read fails: after the temporary file is made.
    const directory = await temporaryDirectory();
    await expect(
      store.put("calls/k.wav", { localFile: directory }, { contentType: "audio/wav" }),
    ).rejects.toMatchObject({ code: "EISDIR" });
    expect(await readdir(path.join(root, "calls"))).toEqual(["k.wav"]);
    expect(await readFile(path.join(root, "calls", "k.wav"), "utf8")).toBe("old");
  });

  it("list skips temporary files left by an interrupted process", async () => {
    await store.put("a/k", "v", { contentType: "text/plain" });
    await writeFile(path.join(root, "a", ".voxtrail-tmp-0d9e"), "partial");
    expect(await store.list("")).toEqual(["a/k"]);
  });

  it("head of a file written without the store reports its size and no hash", async () => {
    await writeFile(path.join(root, "foreign.bin"), "abc");
    expect(await store.head("foreign.bin")).toEqual({
      key: "foreign.bin",
      uri: store.uri("foreign.bin"),
      bytes: 3,
      contentType: "application/octet-stream",
      sha256: undefined,
      etag: undefined,
    });
  });

  it("delete removes the sidecar and the emptied directories", async () => {
    await store.put("x/y/z", "v", { contentType: "text/plain" });
    await store.put("x/keep", "v", { contentType: "text/plain" });
    await store.delete("x/y/z");
    expect(await readdir(root)).toEqual(expect.arrayContaining([".meta", "x"]));
    expect(await readdir(path.join(root, "x"))).toEqual(["keep"]);
    expect(await readdir(path.join(root, ".meta", "x"))).toEqual(["keep.json"]);
    await store.delete("x/keep");
    expect(await readdir(root)).toEqual([".meta", ".versions"]);
    expect(await readdir(path.join(root, ".meta"))).toEqual([]);
    // Deleting every version by id leaves no trace of the key.
    for (const key of ["x/y/z", "x/keep"]) {
      for (const { versionId } of await store.versions(key)) await store.delete(key, { versionId });
    }
    expect(await readdir(path.join(root, ".versions"))).toEqual([]);
  });
});
