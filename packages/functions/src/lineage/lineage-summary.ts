import { createHash, randomBytes } from "node:crypto";
import { ActivityRecord, isSchemaMismatch, type LineageSummary, type ObjectStore } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";

/**
 * Writes `lineage-summaries/<jobId>.json`: a copy of every activity record the job has, in key
 * order and as its file holds it, with the sha256 of each record's bytes, so whole-store lineage
 * queries read one object per job and `verify` can tell an edited record from the one the job
 * wrote. A record that does not parse is left out; the summary then no longer names every record,
 * and readers fall back to the records.
 * Then leaves the job's note for the lineage index (`keys.lineageIndexNote`): a reader of the index
 * reads the summaries of noted jobs, not a listing of every summary.
 *
 * @example
 * await writeLineageSummary(store, "vm-0123456789abcdef0123", new Date());
 */
export async function writeLineageSummary(store: ObjectStore, jobId: string, now: Date): Promise<void> {
  const recordKeys = await store.list(keys.lineagePrefix(jobId));
  const records: LineageSummary["records"] = [];
  for (const key of recordKeys) {
    const bytes = await store.getBytes(key);
    try {
      // Copied as the file holds it (checked against the schema, not rebuilt by it): serialised as
      // the recorder writes records, the copy is the record's bytes, which `verify` checks by hash.
      const record: ActivityRecord = JSON.parse(bytes.toString("utf8"));
      ActivityRecord.parse(record);
      records.push({ key, sha256: createHash("sha256").update(bytes).digest("hex"), record });
    } catch (error) {
      if (!(error instanceof SyntaxError || isSchemaMismatch(error))) throw error;
    }
  }
  const summary: LineageSummary = { schemaVersion: 1, jobId, writtenAt: now.toISOString(), records };
  await store.put(keys.lineageSummary(jobId), `${JSON.stringify(summary)}\n`, {
    contentType: "application/json",
  });
  await store.put(
    keys.lineageIndexNote(jobId, now, randomBytes(4).toString("hex")),
    `${summary.writtenAt}\n`,
    {
      contentType: "text/plain",
    },
  );
}
