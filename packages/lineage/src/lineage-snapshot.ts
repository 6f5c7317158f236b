import { ActivityRecord, ErasureRecord, type ObjectStore } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { ERASURES_PREFIX, erasureKey } from "./erasure-record";
import { mapLimit } from "./parallel";

/** An activity record and the key it was read from. */
export interface StoredActivity {
  key: string;
  record: ActivityRecord;
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
}

/** The part of a zod schema used here. */
interface Schema<T> {
  safeParse(json: unknown): { success: true; data: T } | { success: false; data?: undefined };
}

/** Options of {@link readLineage}. */
export interface ReadLineageOptions {
  /** Only this job's records. */
  jobId?: string;
  /** Reads in flight at once (default 64). */
  concurrency?: number;
}

/**
 * Lists and parses the activity records under `lineage/` and the erasure records under
 * `erasures/`: one listing per prefix, then parallel reads. A record that is not valid JSON of its
 * schema is reported as unreadable, not thrown: an auditor needs the rest of the answer.
 *
 * @example
 * const snapshot = await readLineage(store, { jobId: "vm-0123456789abcdef0123" });
 */
export async function readLineage(
  store: ObjectStore,
  options: ReadLineageOptions = {},
): Promise<LineageSnapshot> {
  const concurrency = options.concurrency ?? 64;
  const [activityKeys, erasureKeys] = await Promise.all([
    store.list(options.jobId ? keys.lineagePrefix(options.jobId) : "lineage/"),
    options.jobId
      ? store.head(erasureKey(options.jobId)).then((head) => (head ? [head.key] : []))
      : store.list(ERASURES_PREFIX),
  ]);
  const unreadable: UnreadableRecord[] = [];
  const read = async <T>(key: string, schema: Schema<T>): Promise<T | undefined> => {
    let json: unknown;
    try {
      json = JSON.parse((await store.getBytes(key)).toString("utf8"));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      unreadable.push({ key, problem: "not JSON" });
      return undefined;
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) unreadable.push({ key, problem: "does not match its schema" });
    return parsed.data;
  };
  const activities = await mapLimit(activityKeys, concurrency, async (key) => {
    const record = await read(key, ActivityRecord);
    return record ? { key, record } : undefined;
  });
  const erasures = await mapLimit(erasureKeys, concurrency, (key) => read(key, ErasureRecord));
  return {
    activities: activities.filter((entry): entry is StoredActivity => entry !== undefined),
    erasures: new Map(
      erasures.filter((entry): entry is ErasureRecord => entry !== undefined).map((e) => [e.jobId, e]),
    ),
    unreadable: unreadable.sort((a, b) => a.key.localeCompare(b.key)),
  };
}
