import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  type ActivityRecord,
  LineageSummary,
  mapLimit,
  type ObjectStore,
  unlessMissing,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import * as z from "zod/mini";
import type { LineageGraph } from "./lineage-graph";
import { checkSummaryHashes } from "./record-integrity";
import type { SummaryState } from "./signed-coverage";
import { jobOfSummaryKey } from "./stored-summary";
import { type ExaminedSummary, SummaryCopies } from "./summary-copies";
import { issue, type VerifyIssue } from "./verify-issues";

/** What {@link checkSummaries} found, and each summary's state for the check against the digests. */
export interface SummaryCheck {
  issues: VerifyIssue[];
  /**
   * By key, in the order of the listing; a summary deleted since it was listed is left out. Empty
   * unless asked for (`states`): only the check against the digests needs them.
   */
  summaries: Map<string, SummaryState>;
}

/** A lineage summary as read: examined on a worker thread (many summaries), or only its bytes. */
export interface ReadSummary {
  key: string;
  read: ExaminedSummary | { bytes: Buffer };
}

/** From this many summaries on, they are parsed on a worker thread ({@link SummaryCopies}). */
const WORKER_FROM = 64;
/** Summaries sent to the worker thread at once. */
const WORKER_BATCH = 128;

/**
 * Starts reading every lineage summary in the store (or only `jobId`'s, without a `head` first),
 * each once, up to `concurrency` at a time; a summary deleted since it was listed is left out. With
 * many, each batch goes to a worker thread as soon as it is read, where the summaries are parsed
 * and their record copies checked by hash: started before the records are read, that work is
 * done on another core meanwhile.
 *
 * @example
 * const summaries = readSummaries(store, { jobId: undefined, concurrency: 32 });
 * const graph = LineageGraph.of(await readLineage(store));
 * const { issues } = checkSummaries(await summaries, graph, { states: false });
 */
export function readSummaries(
  store: ObjectStore,
  options: { jobId: string | undefined; concurrency: number },
): Promise<ReadSummary[]> {
  const { jobId, concurrency } = options;
  const read = (async () => {
    const summaryKeys = jobId ? [keys.lineageSummary(jobId)] : await store.list(keys.lineageSummaries);
    const worker = summaryKeys.length >= WORKER_FROM ? new SummaryCopies() : undefined;
    try {
      const batches: Array<Promise<ReadSummary[]>> = [];
      for (let start = 0; start < summaryKeys.length; start += WORKER_BATCH) {
        const found = (
          await mapLimit(summaryKeys.slice(start, start + WORKER_BATCH), concurrency, async (key) => {
            const bytes = await unlessMissing(store.getBytes(key));
            return bytes && { key, bytes };
          })
        ).filter((entry) => entry !== undefined);
        batches.push(
          worker
            ? worker
                .examine(found.map(({ bytes }) => bytes))
                .then((examined) =>
                  found.map(({ key }, index) => ({ key, read: examined[index] as ExaminedSummary })),
                )
            : Promise.resolve(found.map(({ key, bytes }) => ({ key, read: { bytes } }))),
        );
        // Awaited below: a batch that fails meanwhile is not unhandled.
        batches.at(-1)?.catch(() => undefined);
      }
      return (await Promise.all(batches)).flat();
    } finally {
      await worker?.close();
    }
  })();
  read.catch(() => undefined); // Awaited by the caller, perhaps after other reads.
  return read;
}

/**
 * Checks each summary read against the records: the same record keys, each record's bytes as the
 * summary hashed them, and each copied record equal to the one in the store. A summary is never
 * trusted here; it is only checked. With `states`, its hash and time are kept, for the check
 * against the signed digests (without, the bytes of a summary read here are not hashed).
 */
export function checkSummaries(
  summaries: readonly ReadSummary[],
  graph: LineageGraph,
  options: { states: boolean },
): SummaryCheck {
  const check = new SummaryCheckOf(graph);
  const checked = summaries.map(({ key, read }) => {
    const summaryJob = jobOfSummaryKey(key);
    const { issues, writtenAt } =
      "outline" in read
        ? check.copied(key, summaryJob, read.outline)
        : check.whole(key, summaryJob, read.bytes);
    const state = options.states ? { sha256: sha256Of(read), writtenAt } : undefined;
    return { key, issues, state };
  });
  return {
    issues: checked.flatMap((entry) => entry.issues),
    summaries: new Map(checked.flatMap(({ key, state }) => (state ? [[key, state] as const] : []))),
  };
}

/** The sha256 of a summary's bytes: the worker thread's, or hashed here. */
function sha256Of(read: ReadSummary["read"]): string {
  return "sha256" in read ? read.sha256 : createHash("sha256").update(read.bytes).digest("hex");
}

/** A summary whose record copies are left as read: what is checked before the copies are parsed. */
const SummaryOutline = z.extend(LineageSummary, {
  records: z.array(z.extend(LineageSummary.shape.records.def.element, { record: z.unknown() })),
});

/** A summary without its copies, each of which hashed as the record it names (`summary-copies-worker.mjs`). */
const CopiedSummary = z.extend(LineageSummary, {
  records: z.array(
    z.required(z.omit(LineageSummary.shape.records.def.element, { record: true }), { sha256: true }),
  ),
});

type Findings = { issues: VerifyIssue[]; writtenAt: string | undefined };

/** One summary's findings, and when it says it was written (`undefined`: it is not a summary). */
class SummaryCheckOf {
  constructor(readonly graph: LineageGraph) {}

  /** A summary whose copies the worker thread found to be its records' bytes. */
  copied(key: string, jobId: string, outline: unknown): Findings {
    const summary = CopiedSummary.safeParse(outline).data;
    if (!summary) return mismatch(key, jobId, "the lineage summary does not match its schema");
    // Each copy re-serialises to the bytes its entry's sha256 names: where that is the record's
    // own sha256 (the hash check below sees to it), the copy is the record.
    const stored = new Map((this.graph.jobs.get(jobId) ?? []).map((entry) => [entry.key, entry.sha256]));
    const copiesEqual = summary.records.every(
      (entry) => !stored.has(entry.key) || stored.get(entry.key) === entry.sha256,
    );
    return this.#against(key, jobId, summary, copiesEqual);
  }

  /** A summary read as bytes: parsed here, its copies compared with the records. */
  whole(key: string, jobId: string, bytes: Buffer): Findings {
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString("utf8"));
    } catch {
      return mismatch(key, jobId, "the lineage summary is not JSON");
    }
    const records = new Map((this.graph.jobs.get(jobId) ?? []).map((entry) => [entry.key, entry.record]));
    // Most summaries copy their records exactly: a copy equal to its record (parsed, so of the
    // schema) needs no parsing of its own.
    const outline = SummaryOutline.safeParse(json);
    const copiesEqual =
      outline.success &&
      outline.data.records.every(({ key, record }) => {
        const stored = records.get(key);
        return stored !== undefined && sameJson(record, stored);
      });
    const summary = copiesEqual ? (outline.data as LineageSummary) : LineageSummary.safeParse(json).data;
    if (!summary) return mismatch(key, jobId, "the lineage summary does not match its schema");
    return this.#against(key, jobId, summary, copiesEqual);
  }

  /** The summary (its copies already known equal, or to be compared) against the job's records. */
  #against(
    key: string,
    jobId: string,
    summary: {
      jobId: string;
      writtenAt: string;
      records: Array<{ key: string; sha256?: string; record?: ActivityRecord }>;
    },
    copiesEqual: boolean,
  ): Findings {
    const { graph } = this;
    const { writtenAt } = summary;
    if (summary.jobId !== jobId)
      return mismatch(key, jobId, `the lineage summary names job ${summary.jobId}`, writtenAt);
    const activities = graph.jobs.get(jobId) ?? [];
    const records = new Map(activities.map((entry) => [entry.key, entry.record]));
    // Bytes first: a record changed, moved or deleted since the summary hashed it.
    const hashIssues = checkSummaryHashes(jobId, summary, activities);
    if (hashIssues.length > 0) return { issues: hashIssues, writtenAt };
    for (const { key: recordKey, record } of summary.records) {
      if (!records.has(recordKey)) {
        return graph.unreadable.some((entry) => entry.key === recordKey)
          ? mismatch(
              key,
              jobId,
              `the lineage summary copies ${recordKey}, which is no longer readable`,
              writtenAt,
            )
          : mismatch(
              key,
              jobId,
              `the lineage summary copies ${recordKey}, which the store does not hold`,
              writtenAt,
            );
      }
      if (!copiesEqual && !sameRecord(records.get(recordKey), record)) {
        return mismatch(
          key,
          jobId,
          `the lineage summary's copy of ${recordKey} differs from the record`,
          writtenAt,
        );
      }
      records.delete(recordKey);
    }
    const [extra] = records.keys();
    if (extra === undefined) return { issues: [], writtenAt };
    return mismatch(
      key,
      jobId,
      `the lineage summary leaves out ${extra}${records.size > 1 ? ` and ${records.size - 1} more` : ""}`,
      writtenAt,
    );
  }
}

function mismatch(key: string, jobId: string, detail: string, writtenAt?: string): Findings {
  return { issues: [issue("summary-mismatch", key, jobId, detail)], writtenAt };
}

/**
 * Whether two parsed records hold the same: equal serialisations settle it quickly; otherwise
 * (a difference, or only the order of keys differs) the deep comparison decides.
 */
function sameRecord(a: ActivityRecord | undefined, b: ActivityRecord | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b) || isDeepStrictEqual(a, b);
}

/** Whether two JSON values are equal, whatever the order of their objects' keys. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every(
    (name) =>
      Object.hasOwn(b, name) &&
      sameJson((a as Record<string, unknown>)[name], (b as Record<string, unknown>)[name]),
  );
}
