import type { ActivityRecord, ArtifactRef, ErasureRecord } from "@voxtrail/core";
import type { LineageSnapshot, StoredActivity, UnreadableRecord } from "./lineage-snapshot";

/** An artifact as one activity wrote it. */
export interface Production {
  activity: StoredActivity;
  ref: ArtifactRef;
}

/**
 * The lineage graph of a snapshot: artifact keys to the activity that produced them, and to the
 * activities that read them. Built in one pass over the records; every query after that is a map
 * lookup per step.
 */
export class LineageGraph {
  /** Per artifact key, the latest successful attempt that wrote it: what the object should hold now. */
  readonly producers = new Map<string, Production>();
  /** Per artifact key, every attempt that wrote it, failed ones included (partial writes count). */
  readonly writers = new Map<string, StoredActivity[]>();
  /** Per artifact key, every attempt that read it. */
  readonly readers = new Map<string, StoredActivity[]>();
  /** Per job, its activity records in the order they ran. */
  readonly jobs = new Map<string, StoredActivity[]>();
  /** Per uri, the key (so a `s3://` or `file://` uri names an artifact too). */
  readonly keysByUri = new Map<string, string>();
  /** Per sha256, the keys that held it. */
  readonly keysBySha256 = new Map<string, Set<string>>();

  constructor(
    readonly activities: StoredActivity[],
    readonly erasures: Map<string, ErasureRecord>,
    readonly unreadable: UnreadableRecord[],
    /** Jobs whose records came from their lineage summary (see `readLineage`'s `from`). */
    readonly summarized = 0,
  ) {
    const ordered = [...activities].sort(byRunOrder);
    for (const entry of ordered) {
      const { record } = entry;
      push(this.jobs, record.jobId, entry);
      for (const ref of record.inputs) {
        push(this.readers, ref.key, entry);
        this.#name(ref);
      }
      for (const ref of record.outputs) {
        push(this.writers, ref.key, entry);
        this.#name(ref);
        // Ordered by run: a later success replaces an earlier one.
        if (record.outcome === "succeeded") this.producers.set(ref.key, { activity: entry, ref });
      }
    }
  }

  /** Builds the graph of a snapshot. */
  static of(snapshot: LineageSnapshot): LineageGraph {
    return new LineageGraph(snapshot.activities, snapshot.erasures, snapshot.unreadable, snapshot.summarized);
  }

  /**
   * The key an auditor's name for an artifact refers to: a key, a uri (`s3://bucket/key`,
   * `file:///...`) or a sha256; `undefined` when the lineage knows no such artifact.
   */
  resolve(name: string): string | undefined {
    if (this.writers.has(name) || this.readers.has(name)) return name;
    const byUri = this.keysByUri.get(name);
    if (byUri !== undefined) return byUri;
    const byHash = this.keysBySha256.get(name.toLowerCase());
    if (byHash?.size === 1) return [...byHash][0];
    const s3 = /^s3:\/\/[^/]+\/(.+)$/.exec(name);
    if (s3?.[1] && (this.writers.has(s3[1]) || this.readers.has(s3[1]))) return s3[1];
    return undefined;
  }

  /** The artifact as last recorded: by its producer, else by the latest attempt that read it (a source). */
  artifact(key: string): ArtifactRef | undefined {
    const produced = this.producers.get(key)?.ref;
    if (produced) return produced;
    const reader = this.readers.get(key)?.at(-1);
    return reader?.record.inputs.find((ref) => ref.key === key);
  }

  #name(ref: ArtifactRef): void {
    this.keysByUri.set(ref.uri, ref.key);
    let keysForHash = this.keysBySha256.get(ref.sha256);
    if (!keysForHash) {
      keysForHash = new Set();
      this.keysBySha256.set(ref.sha256, keysForHash);
    }
    keysForHash.add(ref.key);
  }
}

/** Run order: by start time, then attempt (records of one stage are numbered). */
function byRunOrder(a: StoredActivity, b: StoredActivity): number {
  return compare(a.record, b.record);
}

function compare(a: ActivityRecord, b: ActivityRecord): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? -1 : 1;
  if (a.endedAt !== b.endedAt) return a.endedAt < b.endedAt ? -1 : 1;
  return a.attempt - b.attempt;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
