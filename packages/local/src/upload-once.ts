import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { ObjectStore, StoredObject } from "@voxtrail/core";

/**
 * Largest file created with `putIfAbsent` (whose body is held in memory): above the pipeline's
 * 50 MB source limit, so every file Ingest would accept is covered; a larger one (which Ingest
 * refuses anyway) is streamed with a plain put.
 */
const ATOMIC_CREATE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Uploads the file at `path` under `key` unless the key's current object already holds the same
 * bytes (by sha256, where the store recorded one), in which case that object is the upload. A job
 * is one object version, so running the same file twice names the same job (done once), while a
 * file uploaded again after its erasure (the key then holds no current object) is a new version
 * and a new job. Two runs uploading the same file to an empty key at once create it once: the
 * first write is `putIfAbsent`, and the run that loses finds the winner's identical object; a run
 * that finds another's object before the store has described it waits for its description.
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
  let current = await store.head(key);
  // Bytes with no description at all (no sha256, no etag) are another run's create in flight.
  if (current && current.sha256 === undefined && current.etag === undefined) {
    current = await described(store, key);
  }
  if (!current && (await stat(path)).size <= ATOMIC_CREATE_MAX_BYTES) {
    // Read once: the bytes are both hashed and written.
    const bytes = await readFile(path);
    const created = await store.putIfAbsent(key, bytes, { contentType });
    if (created) return created;
    const winner = await described(store, key);
    if (winner?.sha256 === createHash("sha256").update(bytes).digest("hex")) return winner;
  } else if (current?.sha256 !== undefined && current.sha256 === (await sha256Of(path))) {
    return current;
  }
  return store.put(key, { localFile: path }, { contentType });
}

/**
 * Longest wait for the winner's description. Between linking the file and writing its sidecar the
 * directory store keeps a flushed copy of the version, which a loaded machine can stretch past two
 * seconds (the old limit; a full `npm test` on 2 cores once saw two runs of one file end as two
 * jobs): the losing run then uploads a second version, and the file runs twice. A run that only
 * starts in that moment waits the same way (another full run saw it upload a second version).
 */
const DESCRIBED_WAIT_MS = 30_000;
/** How often the winner's description is looked for. */
const DESCRIBED_POLL_MS = 20;

/**
 * The object another run has just created at `key`, once its description (sha256, version id) is
 * written: a store may make the bytes visible first (the directory store links the file, then
 * writes its sidecar). Gives up after {@link DESCRIBED_WAIT_MS} and returns what `head` says then.
 */
async function described(store: ObjectStore, key: string): Promise<StoredObject | undefined> {
  const deadline = Date.now() + DESCRIBED_WAIT_MS;
  while (Date.now() < deadline) {
    const head = await store.head(key);
    if (!head || head.sha256 !== undefined) return head;
    await delay(DESCRIBED_POLL_MS);
  }
  return store.head(key);
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}
