import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LineageSummary, type ObjectStore, readJson } from "@voxtrail/core";
import type { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  boundaries,
  impact,
  LineageGraph,
  openLineageEvents,
  readLineage,
  trace,
  verify,
} from "../src/index";
import { type SyntheticJob, syntheticStore, writeSyntheticJob } from "./synthetic-jobs";

let root: string;
let store: DirectoryStore;

/** The store, counting which keys were read whole. */
function counting(inner: ObjectStore): ObjectStore & { read: string[] } {
  const read: string[] = [];
  return {
    read,
    bucket: inner.bucket,
    put: (key, body, options) => inner.put(key, body, options),
    putIfAbsent: (key, body, options) => inner.putIfAbsent(key, body, options),
    get: (key) => inner.get(key),
    getBytes: (key) => {
      read.push(key);
      return inner.getBytes(key);
    },
    head: (key) => inner.head(key),
    list: (prefix) => inner.list(prefix),
    delete: (key, version) => inner.delete(key, version),
    versions: (key) => inner.versions(key),
    uri: (key) => inner.uri(key),
  };
}

const summaryOf = (jobId: string) => readJson(store, keys.lineageSummary(jobId), LineageSummary);

const writeSummary = (summary: LineageSummary) =>
  writeFile(join(root, ...keys.lineageSummary(summary.jobId).split("/")), JSON.stringify(summary));

let remove: () => Promise<void>;

beforeEach(async () => {
  ({ root, store, remove } = await syntheticStore("voxtrail-summaries-", 0));
});

afterEach(() => remove());

describe("queries from lineage summaries", () => {
  it("answer impact, trace and boundaries from one summary per job, with no record read", async () => {
    const jobs = [await writeSyntheticJob(store, 1), await writeSyntheticJob(store, 2)];
    const reading = counting(store);
    const snapshot = await readLineage(reading, { from: "summaries" });
    expect(snapshot.summarized).toBe(2);
    expect(reading.read.filter((key) => key.startsWith("lineage/"))).toEqual([]);
    expect(reading.read.filter((key) => key.startsWith(keys.lineageSummaries))).toHaveLength(2);

    const fromSummaries = LineageGraph.of(snapshot);
    const fromRecords = LineageGraph.of(await readLineage(store));
    for (const job of jobs) {
      const answer = impact(fromSummaries, job.source.key);
      expect(answer.artifacts.map((ref) => ref.kind)).toEqual([
        "normalized-audio",
        "report",
        "transcript",
        "record",
        "reply-text",
        "reply-audio",
      ]);
      expect(answer).toEqual(impact(fromRecords, job.source.key));
      expect(trace(fromSummaries, job.artifacts.replyAudio.key)).toEqual(
        trace(fromRecords, job.artifacts.replyAudio.key),
      );
    }
    expect(boundaries(fromSummaries)).toEqual(boundaries(fromRecords));
    expect([...openLineageEvents(fromSummaries, { bucket: store.bucket })]).toEqual([
      ...openLineageEvents(fromRecords, { bucket: store.bucket }),
    ]);
  });

  it("falls back to the records of a job that has no summary", async () => {
    const summarized = await writeSyntheticJob(store, 1);
    const unsummarized = await writeSyntheticJob(store, 2, undefined, false);
    const reading = counting(store);
    const snapshot = await readLineage(reading, { from: "summaries" });
    expect(snapshot.summarized).toBe(1);
    expect(reading.read.filter((key) => key.startsWith("lineage/")).sort()).toEqual(
      await store.list(keys.lineagePrefix(unsummarized.jobId)),
    );
    const graph = LineageGraph.of(snapshot);
    expect(impact(graph, unsummarized.source.key).jobs).toEqual([unsummarized.jobId]);
    expect(impact(graph, summarized.source.key).jobs).toEqual([summarized.jobId]);
  });

  it("does not use a summary that leaves out a record written after it", async () => {
    const job = await writeSyntheticJob(store, 1);
    // A later attempt (a retry after the job ended) is in the records, not in the summary.
    const summary = await summaryOf(job.jobId);
    const finalize = summary.records.find(({ key }) => key.includes("/finalize-"));
    const retryKey = keys.lineage(job.jobId, "Finalize", 2);
    await store.put(
      retryKey,
      JSON.stringify({
        ...finalize?.record,
        attempt: 2,
        activityId: "retry",
        startedAt: "2027-01-01T00:00:00.000Z",
      }),
      { contentType: "application/json" },
    );
    const snapshot = await readLineage(store, { from: "summaries" });
    expect(snapshot.summarized).toBe(0);
    expect(snapshot.activities.map(({ key }) => key)).toContain(retryKey);
  });

  it("is also used for one job", async () => {
    const job = await writeSyntheticJob(store, 1);
    await writeSyntheticJob(store, 2);
    const reading = counting(store);
    const snapshot = await readLineage(reading, { jobId: job.jobId, from: "summaries" });
    expect(snapshot.summarized).toBe(1);
    expect(snapshot.activities.every(({ record }) => record.jobId === job.jobId)).toBe(true);
    expect(reading.read).toEqual([keys.lineageSummary(job.jobId)]);
  });
});

describe("verify checks every summary against the records", () => {
  let job: SyntheticJob;
  beforeEach(async () => {
    job = await writeSyntheticJob(store, 1);
    await writeSyntheticJob(store, 2);
    expect((await verify(store, LineageGraph.of(await readLineage(store)))).ok).toBe(true);
  });

  const verifyAll = async () => verify(store, LineageGraph.of(await readLineage(store)));

  it("names a summary whose copy of a record was altered", async () => {
    const summary = await summaryOf(job.jobId);
    const transcribe = summary.records.find(({ key }) => key.includes("/transcribe-"));
    if (!transcribe) throw new Error("the synthetic job has a Transcribe record");
    transcribe.record.processors[0]!.model = "another-model";
    await writeSummary(summary);
    const result = await verifyAll();
    expect(result.ok).toBe(false);
    expect(result.issues).toEqual([
      expect.objectContaining({
        problem: "summary-mismatch",
        key: keys.lineageSummary(job.jobId),
        jobId: job.jobId,
        detail: expect.stringContaining(transcribe.key),
      }),
    ]);
    // `verify --job` checks that job's summary too.
    expect(
      (
        await verify(store, LineageGraph.of(await readLineage(store, { jobId: job.jobId })), {
          jobId: job.jobId,
        })
      ).issues,
    ).toEqual([expect.objectContaining({ problem: "summary-mismatch" })]);
  });

  it("names a record altered after the summary was written, though every artifact still matches", async () => {
    const key = keys.lineage(job.jobId, "Synthesize", 1);
    const record = JSON.parse((await store.getBytes(key)).toString("utf8"));
    record.processors[0].provider = "somewhere-else";
    await writeFile(join(root, ...key.split("/")), JSON.stringify(record));
    const result = await verifyAll();
    expect(result.issues.map(({ problem, key }) => [problem, key])).toEqual([
      ["summary-mismatch", keys.lineageSummary(job.jobId)],
    ]);
  });

  it("names a summary that copies a record the store does not hold, or leaves one out", async () => {
    const summary = await summaryOf(job.jobId);
    const dropped = summary.records.pop();
    await writeSummary(summary);
    expect((await verifyAll()).issues).toEqual([
      expect.objectContaining({
        problem: "summary-mismatch",
        detail: `the lineage summary leaves out ${dropped?.key}`,
      }),
    ]);
    if (!dropped) throw new Error("the summary had records");
    summary.records.push(dropped, { ...dropped, key: keys.lineage(job.jobId, "Finalize", 9) });
    await writeSummary(summary);
    expect((await verifyAll()).issues).toEqual([
      expect.objectContaining({
        problem: "summary-mismatch",
        detail: expect.stringContaining("which the store does not hold"),
      }),
    ]);
  });

  it("refuses a graph read from the summaries", async () => {
    const graph = LineageGraph.of(await readLineage(store, { from: "summaries" }));
    await expect(verify(store, graph)).rejects.toMatchObject({ name: "VerifyNeedsRecords" });
  });

  it("names a summary that is not JSON", async () => {
    await writeFile(join(root, ...keys.lineageSummary(job.jobId).split("/")), "{not json");
    expect((await verifyAll()).issues).toEqual([
      expect.objectContaining({ problem: "summary-mismatch", key: keys.lineageSummary(job.jobId) }),
    ]);
    // The queries read that job's records instead.
    expect((await readLineage(store, { from: "summaries" })).summarized).toBe(1);
  });
});
