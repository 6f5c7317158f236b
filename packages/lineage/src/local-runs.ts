import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { type ObjectStore, processAlive } from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import * as z from "zod/mini";

/**
 * A CLI run in progress on a directory store: the process that runs it, on which host, since when.
 * Written when the run starts and deleted once it has signed what it made, so `verify` can tell a
 * job a live run will still sign from one nobody signed.
 */
const LocalRunMarker = z.object({
  schemaVersion: z.literal(1),
  pid: z.number().check(z.int(), z.positive()),
  host: z.string(),
  startedAt: z.iso.datetime(),
});
type LocalRunMarker = z.infer<typeof LocalRunMarker>;

/** A run's marker in the store, until {@link LocalRun.end}. */
export interface LocalRun {
  readonly key: string;
  /** Deletes the marker, every version of it: the run has signed what it made (or will sign nothing more). */
  end(): Promise<void>;
}

/**
 * Marks a run in progress on `store`, and deletes this host's markers whose process is gone (a
 * run killed before it could end). The marker holds no caller data.
 *
 * @example
 * const run = await markLocalRun(store);
 * try { ... } finally { await run.end(); }
 */
export async function markLocalRun(store: ObjectStore, now: Date = new Date()): Promise<LocalRun> {
  for (const { key, marker } of await readMarkers(store)) {
    if (marker && marker.host === hostname() && !isLive(marker)) await deleteForGood(store, key);
  }
  const key = keys.localRun(randomUUID());
  const marker: LocalRunMarker = {
    schemaVersion: 1,
    pid: process.pid,
    host: hostname(),
    startedAt: now.toISOString(),
  };
  await store.put(key, `${JSON.stringify(marker)}\n`, { contentType: "application/json" });
  return { key, end: () => deleteForGood(store, key) };
}

/** Deletes every version of `key`: a marker leaves nothing behind in a versioned store. */
async function deleteForGood(store: ObjectStore, key: string): Promise<void> {
  for (const { versionId } of await store.versions(key)) await store.delete(key, { versionId });
}

/**
 * When the earliest run still in progress on `store` started: a marker of this host whose process
 * is alive. A marker of another host, or of a process that is gone, is not a run in progress (a
 * directory store is this machine's); `undefined` when no run is.
 */
export async function liveRunsSince(store: ObjectStore): Promise<string | undefined> {
  const live = (await readMarkers(store)).flatMap(({ marker }) =>
    marker && isLive(marker) ? [marker.startedAt] : [],
  );
  return live.sort()[0];
}

/** Every marker under `local-runs/`, parsed where it is one. */
async function readMarkers(store: ObjectStore) {
  const listed = (await store.list(KEY_FOLDERS.localRuns)).filter((key) => key.endsWith(".json"));
  return Promise.all(
    listed.map(async (key) => {
      const parsed = LocalRunMarker.safeParse(
        await store
          .getBytes(key)
          .then((bytes) => JSON.parse(bytes.toString("utf8")))
          .catch(() => undefined),
      );
      return { key, marker: parsed.success ? parsed.data : undefined };
    }),
  );
}

/** Whether the marker's run is in progress: its process, on this host, is alive. */
function isLive(marker: LocalRunMarker): boolean {
  return marker.host === hostname() && processAlive(marker.pid);
}
