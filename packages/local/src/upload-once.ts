import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import type { ObjectStore, StoredObject } from "@voxtrail/core";

/**
 * Uploads the file at `path` under `key` unless the key's current object already holds the same
 * bytes (by sha256, where the store recorded one), in which case that object is the upload. A job
 * is one object version, so running the same file twice names the same job (done once), while a
 * file uploaded again after its erasure (the key then holds no current object) is a new version
 * and a new job.
 *
 * @example
 * const stored = await uploadOnce(store, "incoming/voicemail/call.wav", "calls/call.wav", "audio/wav");
 */
export async function uploadOnce(
  store: ObjectStore,
  key: string,
  path: string,
  contentType: string,
): Promise<StoredObject> {
  const current = await store.head(key);
  if (current?.sha256 !== undefined && current.sha256 === (await sha256Of(path))) return current;
  return store.put(key, createReadStream(path), { contentType });
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}
