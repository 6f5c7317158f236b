import { mapLimit, type ObjectStore } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";

/** A note a job left for the lineage index as it ended (`keys.lineageIndexNote`). */
export interface PendingNote {
  key: string;
  jobId: string;
}

/**
 * Every note in the store: the jobs that ended (or ended again) since the compactions that
 * deleted the notes before them. One listing of a prefix that holds only those jobs' notes.
 *
 * @example
 * const jobIds = new Set((await listPendingNotes(store)).map((note) => note.jobId));
 */
export async function listPendingNotes(store: ObjectStore): Promise<PendingNote[]> {
  const prefix = keys.lineageIndexPending;
  return (await store.list(prefix)).flatMap((key) => {
    const [jobId, note, ...rest] = key.slice(prefix.length).split("/");
    return jobId && note && rest.length === 0 ? [{ key, jobId }] : [];
  });
}

/**
 * Deletes `notes` once the index holds their jobs' summaries as they were when the notes were
 * listed. A note left after that listing has a key of its own and stays, so its job stays pending.
 */
export async function clearPendingNotes(store: ObjectStore, notes: readonly PendingNote[]): Promise<void> {
  await mapLimit(notes, 16, ({ key }) => store.delete(key));
}
