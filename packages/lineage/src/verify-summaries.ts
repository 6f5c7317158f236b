import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  type ActivityRecord,
  LineageSummary,
  mapLimit,
  ObjectNotFound,
  type ObjectStore,
} from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { z } from "zod";
import type { LineageGraph } from "./lineage-graph";
import { checkSummaryHashes } from "./record-integrity";
import type { SummaryState } from "./signed-coverage";
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

/**
 * Reads every lineage summary in the store (or only `jobId`'s, without a `head` first), each once,
 * in parallel, and checks it against the records as it is read: the same record keys, each
 * record's bytes as the summary hashed them, and each copied record equal to the one in the store.
 * A summary is never trusted here; it is only checked. With `states`, its hash and time are kept,
 * for the check against the signed digests (without, its bytes are not hashed).
 */
export async function checkSummaries(
  store: ObjectStore,
  graph: LineageGraph,
  options: { jobId: string | undefined; concurrency: number; states: boolean },
): Promise<SummaryCheck> {
  const { jobId, concurrency, states } = options;
  const summaryKeys = jobId ? [keys.lineageSummary(jobId)] : await store.list(keys.lineageSummaries);
  const checked = await mapLimit(summaryKeys, concurrency, async (key) => {
    let bytes: Buffer;
    try {
      bytes = await store.getBytes(key);
    } catch (error) {
      if (error instanceof ObjectNotFound) return undefined;
      throw error;
    }
    const summaryJob = key.slice(keys.lineageSummaries.length, -".json".length);
    const { issues, writtenAt } = checkSummary(key, summaryJob, bytes, graph);
    const state = states
      ? { sha256: createHash("sha256").update(bytes).digest("hex"), writtenAt }
      : undefined;
    return { key, issues, state };
  });
  const found = checked.filter((entry) => entry !== undefined);
  return {
    issues: found.flatMap((entry) => entry.issues),
    summaries: new Map(found.flatMap(({ key, state }) => (state ? [[key, state] as const] : []))),
  };
}

/** A summary whose record copies are left as read: what is checked before the copies are parsed. */
const SummaryOutline = LineageSummary.extend({
  records: z.array(LineageSummary.shape.records.element.extend({ record: z.unknown() })),
});

/** One summary's findings, and when it says it was written (`undefined`: it is not a summary). */
function checkSummary(
  key: string,
  jobId: string,
  bytes: Buffer,
  graph: LineageGraph,
): { issues: VerifyIssue[]; writtenAt: string | undefined } {
  const mismatch = (detail: string, writtenAt?: string) => ({
    issues: [issue("summary-mismatch", key, jobId, detail)],
    writtenAt,
  });
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    return mismatch("the lineage summary is not JSON");
  }
  const activities = graph.jobs.get(jobId) ?? [];
  const records = new Map(activities.map((entry) => [entry.key, entry.record]));
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
  if (!summary) return mismatch("the lineage summary does not match its schema");
  const { writtenAt } = summary;
  if (summary.jobId !== jobId) return mismatch(`the lineage summary names job ${summary.jobId}`, writtenAt);
  // Bytes first: a record changed, moved or deleted since the summary hashed it.
  const hashIssues = checkSummaryHashes(jobId, summary, activities);
  if (hashIssues.length > 0) return { issues: hashIssues, writtenAt };
  for (const { key: recordKey, record } of summary.records) {
    if (!records.has(recordKey)) {
      return graph.unreadable.some((entry) => entry.key === recordKey)
        ? mismatch(`the lineage summary copies ${recordKey}, which is no longer readable`, writtenAt)
        : mismatch(`the lineage summary copies ${recordKey}, which the store does not hold`, writtenAt);
    }
    if (!copiesEqual && !sameRecord(records.get(recordKey), record)) {
      return mismatch(`the lineage summary's copy of ${recordKey} differs from the record`, writtenAt);
    }
    records.delete(recordKey);
  }
  const [extra] = records.keys();
  if (extra === undefined) return { issues: [], writtenAt };
  return mismatch(
    `the lineage summary leaves out ${extra}${records.size > 1 ? ` and ${records.size - 1} more` : ""}`,
    writtenAt,
  );
}

/**
 * Whether two parsed records hold the same: equal serialisations settle it quickly; otherwise
 * (a difference, or only the order of keys differs) the deep comparison decides.
 */
function sameRecord(a: ActivityRecord | undefined, b: ActivityRecord): boolean {
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
