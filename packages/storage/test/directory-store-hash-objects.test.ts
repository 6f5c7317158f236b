import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ObjectNotFound } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObjectToHash } from "../src/directory-store";
import { DirectoryStore } from "../src/index";

/** More objects than `hashObjects` hashes on the calling thread: these go to worker threads. */
const MANY = 1100;

let root: string;
let outside: string;
let store: DirectoryStore;
let firstVersion: string;
let secondVersion: string;
/** Files written straight into the root (no sidecars), to bring a call over the threshold. */
const filler: ObjectToHash[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "voxtrail-hash-objects-"));
  outside = await mkdtemp(path.join(tmpdir(), "voxtrail-hash-objects-outside-"));
  store = new DirectoryStore({ root });
  await mkdir(path.join(root, "filler"));
  for (let index = 0; index < MANY; index++) {
    await writeFile(path.join(root, "filler", `${index}.txt`), `filler ${index}`);
    filler.push({ key: `filler/${index}.txt` });
  }
  await store.put("plain.txt", "plain", { contentType: "text/plain" });
  await store.put("dir/below.txt", "below", { contentType: "text/plain" });
  await store.put("large.bin", randomBytes(3 * (1 << 20) + 17), { contentType: "application/octet-stream" });
  firstVersion = (await store.put("source.wav", "first upload", { contentType: "audio/wav" }))
    .versionId as string;
  secondVersion = (await store.put("source.wav", "second upload", { contentType: "audio/wav" }))
    .versionId as string;
  await mkdir(path.join(root, "real"));
  await writeFile(path.join(root, "real", "x.txt"), "through an alias");
  await symlink(path.join(root, "real"), path.join(root, "alias"));
  execFileSync("mkfifo", [path.join(root, "fifo")]);
  await writeFile(path.join(outside, "secret"), "outside data");
  await symlink(outside, path.join(root, "escape"));
  await symlink(path.join(outside, "secret"), path.join(root, "leak"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** What hashing `getBytes` of each object gives: the answer `hashObjects` must give. */
async function expected(objects: ObjectToHash[]) {
  return Promise.all(
    objects.map(async ({ key, versionId }) => {
      try {
        const bytes = await store.getBytes(key, versionId === undefined ? undefined : { versionId });
        return { sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.byteLength };
      } catch (error) {
        if (error instanceof ObjectNotFound) return undefined;
        throw error;
      }
    }),
  );
}

describe.each([
  ["on the calling thread", 0],
  ["on worker threads", MANY],
])("DirectoryStore.hashObjects %s", (_way, fillers) => {
  const padded = (objects: ObjectToHash[]) => [...objects, ...filler.slice(0, fillers)];

  it("gives each object's sha256 and size as getBytes reads it, undefined where there is none", async () => {
    const objects = padded([
      { key: "plain.txt" },
      { key: "dir/below.txt" },
      { key: "large.bin" },
      { key: "source.wav", versionId: firstVersion },
      { key: "source.wav", versionId: secondVersion },
      { key: "source.wav" },
      { key: "source.wav", versionId: "0000.no.such" },
      { key: "missing.txt" },
      { key: "missing/deeper.txt" },
      { key: "dir" },
      { key: "fifo" },
      { key: "alias/x.txt" },
    ]);
    const hashed = await store.hashObjects(objects);
    expect(hashed).toEqual(await expected(objects));
    expect(hashed.slice(0, 12).map((each) => each?.bytes)).toEqual([
      5,
      5,
      3 * (1 << 20) + 17,
      12,
      13,
      13,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      16,
    ]);
  });

  it("refuses an invalid key, and one that leads out of the root, with InvalidKey", async () => {
    for (const key of ["../x", "escape/secret", "escape/missing", "leak"]) {
      await expect(store.hashObjects(padded([{ key: "plain.txt" }, { key }]))).rejects.toMatchObject({
        name: "InvalidKey",
      });
    }
  });
});
