import { createHash } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import {
  ActivityRecord,
  ErasureRecord,
  isSchemaMismatch,
  mapLimit,
  type ObjectStore,
  readJson,
} from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import { jobOfSummaryKey, readStoredSummary } from "./stored-summary";

/** An activity record and the key it was read from. */
export interface StoredActivity {
  key: string;
  record: ActivityRecord;
  /** The sha256 of the record's bytes: as read, or as its lineage summary names it. */
  sha256?: string | undefined;
}

/** A record that could not be read as what its key says it is. */
export interface UnreadableRecord {
  key: string;
  problem: string;
}

/** Every lineage record in a store (or of one job), as read at one moment. */
export interface LineageSnapshot {
  activities: StoredActivity[];
  erasures: Map<string, ErasureRecord>;
  unreadable: UnreadableRecord[];
  /** Jobs whose records were taken from their lineage summary rather than read one by one. */
  summarized: number;
}

/** A schema `readJson` takes. */
type Schema = Parameters<typeof readJson>[2];

/** Options of {@link readLineage}. */
export interface ReadLineageOptions {
  /** Only this job's records. */
  jobId?: string;
  /** Reads in flight at once (default 64). */
  concurrency?: number;
  /**
   * `summaries`: take a job's records from its lineage summary when the summary names exactly the
   * record keys the store lists for the job (one read per job instead of one per record); read the
   * records of every other job. Default `records`: read every record (what `verify` needs).
   */
  from?: "records" | "summaries";
}

/**
 * Lists and parses the activity records under `lineage/` and the erasure records under
 * `erasures/`: one listing per prefix, then parallel reads. A record that is not valid JSON of its
 * schema is reported as unreadable, not thrown: an auditor needs the rest of the answer.
 *
 * @example
 * const snapshot = await readLineage(store, { jobId: "vm-0123456789abcdef0123" });
 */
/** Records read between turns of the event loop. */
const READS_PER_TURN = 256;

export async function readLineage(
  store: ObjectStore,
  options: ReadLineageOptions = {},
): Promise<LineageSnapshot> {
  const concurrency = options.concurrency ?? 64;
  const [activityKeys, erasureKeys] = await Promise.all([
    store.list(options.jobId ? keys.lineagePrefix(options.jobId) : KEY_FOLDERS.lineage),
    options.jobId
      ? store.head(keys.erasure(options.jobId)).then((head) => (head ? [head.key] : []))
      : store.list(KEY_FOLDERS.erasures),
  ]);
  const unreadable: UnreadableRecord[] = [];
  // A record that is not JSON, or not of its schema, is reported (unless `quiet`) and skipped.
  // With `bytes`, parses those (already read, to be hashed) instead of reading the key.
  const read = <S extends Schema>(key: string, schema: S, quiet = false, bytes?: Buffer) =>
    readJson(bytes ? { getBytes: async () => bytes } : store, key, schema).catch((error: unknown) => {
      const problem =
        error instanceof SyntaxError
          ? "not JSON"
          : isSchemaMismatch(error)
            ? "does not match its schema"
            : undefined;
      if (problem === undefined) throw error;
      if (!quiet) unreadable.push({ key, problem });
      return undefined;
    });
  const summarized = new Set<string>();
  const copied = new Map<string, StoredActivity>();
  if (options.from === "summaries") {
    const byJob = recordKeysByJob(activityKeys);
    const summaryKeys = options.jobId
      ? [keys.lineageSummary(options.jobId)]
      : await store.list(keys.lineageSummaries);
    await mapLimit(summaryKeys, concurrency, async (key) => {
      const jobId = jobOfSummaryKey(key);
      const expected = byJob.get(jobId);
      if (!expected) return; // No records: nothing a summary could stand for.
      // A summary that is missing, unreadable or does not name exactly the listed records is not
      // used; `verify` reports it. Its job's records are read instead.
      const summary = await readStoredSummary(store, key);
      if (typeof summary === "string" || summary.jobId !== jobId || !sameKeys(summary.records, expected)) {
        return;
      }
      summarized.add(jobId);
      for (const entry of summary.records) copied.set(entry.key, entry);
    });
  }
  // In the order of the listing, whichever way each record was read.
  let reads = 0;
  const activities = await mapLimit(activityKeys, concurrency, async (key) => {
    if (summarized.has(jobOfRecordKey(key))) return copied.get(key);
    // A directory store reads small files without leaving this thread: let other work (worker
    // threads' answers, timers, signals) in now and then.
    if (++reads % READS_PER_TURN === 0) await setImmediate();
    const bytes = await store.getBytes(key);
    const record = await read(key, ActivityRecord, false, bytes);
    return record ? { key, record, sha256: createHash("sha256").update(bytes).digest("hex") } : undefined;
  });
  const erasures = await mapLimit(erasureKeys, concurrency, (key) => read(key, ErasureRecord));
  return {
    activities: activities.filter((entry): entry is StoredActivity => entry !== undefined),
    erasures: new Map(
      erasures.filter((entry): entry is ErasureRecord => entry !== undefined).map((e) => [e.jobId, e]),
    ),
    unreadable: unreadable.sort((a, b) => a.key.localeCompare(b.key)),
    summarized: summarized.size,
  };
}

/** The job an activity record's key belongs to (`lineage/<jobId>/<stage>-NN.json`); `""` for none. */
function jobOfRecordKey(key: string): string {
  const slash = key.indexOf("/", KEY_FOLDERS.lineage.length);
  return slash < 0 ? "" : key.slice(KEY_FOLDERS.lineage.length, slash);
}

function recordKeysByJob(recordKeys: string[]): Map<string, string[]> {
  const byJob = new Map<string, string[]>();
  for (const key of recordKeys) {
    const jobId = jobOfRecordKey(key);
    if (!jobId) continue;
    const list = byJob.get(jobId);
    if (list) list.push(key);
    else byJob.set(jobId, [key]);
  }
  return byJob;
}

function sameKeys(records: ReadonlyArray<{ key: string }>, listed: readonly string[]): boolean {
  if (records.length !== listed.length) return false;
  const names = new Set(listed);
  return records.every(({ key }) => names.delete(key));
}
