import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStore, StoredObject } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadOnce } from "../src/upload-once";

/**
 * `store` with its creates timed and, for `ms` after one, `head` answering with `hide(head)`: the
 * bytes visible before their description, as a loaded directory store shows them.
 */
function slowToDescribe(
  store: ObjectStore,
  ms: number,
  hide: (head: StoredObject) => StoredObject,
): ObjectStore {
  let createdAt: number | undefined;
  return new Proxy(store, {
    get(target, property) {
      if (property === "putIfAbsent") {
        return async (...args: Parameters<ObjectStore["putIfAbsent"]>) => {
          const created = await target.putIfAbsent(...args);
          if (created) createdAt = Date.now();
          return created;
        };
      }
      if (property === "head") {
        return async (...args: Parameters<ObjectStore["head"]>) => {
          const head = await target.head(...args);
          if (!head || createdAt === undefined || Date.now() - createdAt >= ms) return head;
          return hide(head);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("uploadOnce: two runs uploading one file to an empty key at once", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "voxtrail-upload-once-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("agree on one object even when the winner's description is written seconds after its bytes", async () => {
    const file = join(dir, "call.wav");
    await writeFile(file, "RIFF....WAVE");
    const store = new DirectoryStore({ root: join(dir, "store") });
    // The store's bytes are visible at once; its description (sha256) only 3 s after the create,
    // as on a loaded machine where the directory store's flushed version copy is slow.
    const slow = slowToDescribe(store, 3000, (head) => ({ ...head, sha256: undefined }));
    const key = "incoming/voicemail/call.wav";
    const [first, second] = await Promise.all([
      uploadOnce(slow, key, file, "audio/wav"),
      uploadOnce(slow, key, file, "audio/wav"),
    ]);
    expect(first?.versionId).toBeDefined();
    expect(second?.versionId).toBe(first?.versionId);
    expect(await store.versions(key)).toHaveLength(1);
  }, 60_000);

  it("agree on one object when the second run starts after the first's bytes, before their description", async () => {
    const file = join(dir, "late.wav");
    await writeFile(file, "RIFF....WAVE late");
    const store = new DirectoryStore({ root: join(dir, "late-store") });
    // As the directory store is between linking the file and writing its sidecar: the bytes are
    // there, undescribed (no sha256, etag or version id), for 2 s after the create.
    const slow = slowToDescribe(store, 2000, (head) => ({
      key: head.key,
      uri: head.uri,
      bytes: head.bytes,
      contentType: "application/octet-stream",
    }));
    const key = "incoming/voicemail/late.wav";
    const first = await uploadOnce(slow, key, file, "audio/wav");
    const second = await uploadOnce(slow, key, file, "audio/wav");
    expect(first?.versionId).toBeDefined();
    expect(second?.versionId).toBe(first?.versionId);
    expect(await store.versions(key)).toHaveLength(1);
  }, 60_000);
});
