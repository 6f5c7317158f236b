import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactLineageIndex, reindexLineage } from "../src/edge-index/compact-index";
import { writeGeneration } from "../src/edge-index/index-generation";
import { latestManifest } from "../src/edge-index/index-manifest";
import { type IndexRows, jobRows } from "../src/edge-index/index-rows";
import { checkLineageIndex } from "../src/edge-index/verify-index";
import { readLineage } from "../src/index";
import type { StoredActivity } from "../src/lineage-snapshot";
import { type SyntheticStore, syntheticStore, writeSyntheticJob } from "./synthetic-jobs";

let synthetic: SyntheticStore;

beforeEach(async () => {
  synthetic = await syntheticStore("voxtrail-verify-index-", 4);
});

afterEach(() => synthetic.remove());

/** The store's activity records, read as verify reads them, and grouped by job. */
async function recordsByJob(): Promise<{
  activities: StoredActivity[];
  byJob: Map<string, StoredActivity[]>;
}> {
  const { activities } = await readLineage(synthetic.store, { from: "records" });
  const byJob = new Map<string, StoredActivity[]>();
  for (const entry of activities)
    byJob.set(entry.record.jobId, [...(byJob.get(entry.record.jobId) ?? []), entry]);
  return { activities, byJob };
}

/** Writes a generation over the latest in which `jobs` have the given rows (what a tamperer could do). */
async function overwrite(jobs: Map<string, IndexRows>): Promise<void> {
  const base = await latestManifest(synthetic.store);
  const written = await writeGeneration(synthetic.store, base?.manifest, {
    jobs,
    watermark: base?.manifest.watermark ?? null,
    recent: base?.manifest.recent ?? {},
  });
  expect(written).toBeDefined();
}

describe("checkLineageIndex", () => {
  it("finds nothing in a store without an index, nor in an index compacted or rebuilt from the records", async () => {
    const { activities } = await recordsByJob();
    expect(await checkLineageIndex(synthetic.store, activities)).toEqual({ jobsChecked: 0, findings: [] });
    await compactLineageIndex(synthetic.store);
    expect((await checkLineageIndex(synthetic.store, activities)).findings).toEqual([]);
    await reindexLineage(synthetic.store);
    const rebuilt = await checkLineageIndex(synthetic.store, activities);
    expect(rebuilt).toMatchObject({ jobsChecked: 4, findings: [] });
  });

  it("names a job whose edge rows were altered, one whose records were dropped, and one invented", async () => {
    await reindexLineage(synthetic.store);
    const { activities, byJob } = await recordsByJob();
    const [altered, dropped] = [...byJob.keys()].sort() as [string, string];
    const alteredRows = jobRows(altered, byJob.get(altered) as StoredActivity[]);
    (alteredRows.edges[0] as { key: string }).key = "incoming/voicemail/someone-else.wav";
    const droppedRows = jobRows(dropped, (byJob.get(dropped) as StoredActivity[]).slice(1));
    const invented = jobRows("vm-invented00000000000", byJob.get(altered) as StoredActivity[]);
    await overwrite(
      new Map([
        [altered, alteredRows],
        [dropped, droppedRows],
        ["vm-invented00000000000", invented],
      ]),
    );

    const { findings, manifestKey } = await checkLineageIndex(synthetic.store, activities);
    expect(findings).toEqual(
      expect.arrayContaining([
        {
          problem: "index-mismatch",
          key: manifestKey,
          detail: `job ${altered}'s edges rows differ from its records`,
        },
        {
          problem: "index-mismatch",
          key: manifestKey,
          detail: `job ${dropped}'s edges, records, jobs rows differ from its records`,
        },
        {
          problem: "index-extra-job",
          key: manifestKey,
          detail: "the index holds job vm-invented00000000000, which has no lineage records",
        },
      ]),
    );
    expect(findings).toHaveLength(3);
    expect((await checkLineageIndex(synthetic.store, activities, { jobId: altered })).findings).toHaveLength(
      1,
    );
  });

  it("names an edited job's rows even when its summary was touched since: the answers still read them", async () => {
    await reindexLineage(synthetic.store);
    const { activities, byJob } = await recordsByJob();
    const [altered] = [...byJob.keys()].sort() as [string];
    const rows = jobRows(altered, byJob.get(altered) as StoredActivity[]);
    (rows.edges[0] as { key: string }).key = "incoming/voicemail/someone-else.wav";
    await overwrite(new Map([[altered, rows]]));
    // The summary put again, byte for byte: newer in the listing, but no job ended (no note), so
    // trace, impact and boundaries answer from the index's rows for it.
    const summaryKey = keys.lineageSummary(altered);
    const bytes = await synthetic.store.getBytes(summaryKey);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await synthetic.store.put(summaryKey, bytes, { contentType: "application/json" });

    const { findings } = await checkLineageIndex(synthetic.store, activities);
    expect(findings).toEqual([
      expect.objectContaining({
        problem: "index-mismatch",
        detail: `job ${altered}'s edges rows differ from its records`,
      }),
    ]);
  });

  it("names a finished job missing from the index, but not one finished since the last compaction", async () => {
    await writeSyntheticJob(synthetic.store, 5, Date.UTC(2026, 0, 1), false);
    await reindexLineage(synthetic.store);
    const late = await writeSyntheticJob(synthetic.store, 6);
    // Ended as Finalize ends a job: with its note for the index (how the answers know it is not in it).
    await synthetic.store.put(keys.lineageIndexNote(late.jobId, new Date(), "0000"), "\n", {
      contentType: "text/plain",
    });
    const { activities } = await recordsByJob();
    // Job 5 has records but no summary yet (still running), job 6 finished after the index: neither is missing.
    expect((await checkLineageIndex(synthetic.store, activities)).findings).toEqual([]);

    const { byJob } = await recordsByJob();
    const base = await latestManifest(synthetic.store);
    const others = new Map(
      [...byJob]
        .filter(([jobId]) => jobId !== late.jobId)
        .map(([jobId, list]) => [jobId, jobRows(jobId, list)]),
    );
    // An index rebuilt as if it held job 6 (its note cleared, as compaction clears the notes of the
    // jobs it indexes), without job 6.
    for (const key of await synthetic.store.list(keys.lineageIndexPending)) await synthetic.store.delete(key);
    const written = await writeGeneration(synthetic.store, base?.manifest, {
      jobs: others,
      watermark: new Date(Date.now() + 3_600_000).toISOString(),
      recent: {},
      replaceAll: true,
    });
    expect(written).toBeDefined();
    expect((await checkLineageIndex(synthetic.store, activities)).findings).toEqual([
      expect.objectContaining({
        problem: "index-missing-job",
        detail: `finished job ${late.jobId} is not in the index`,
      }),
    ]);
  });
});
