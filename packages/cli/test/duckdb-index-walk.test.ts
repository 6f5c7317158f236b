import { createHash, randomUUID } from "node:crypto";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ActivityRecord, type ArtifactRef, type LineageSummary, readJson } from "@voxtrail/core";
import { impact, LineageGraph, readLineage, trace } from "@voxtrail/lineage";
import { type LookupFilters, lookupFiltersOf } from "@voxtrail/lineage/answers";
import {
  type IndexEngine,
  IndexWalkTooDeep,
  impactFromIndex,
  reindexLineage,
  traceFromIndex,
  WALK_DEPTH,
} from "@voxtrail/lineage/edge-index";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SyntheticStore, syntheticStore } from "../../lineage/test/synthetic-jobs";
import { type DuckDbIndex, openDuckDbIndex } from "../src/lineage-index/duckdb-index";

/** Keys one job writes from one source, each read by a job of its own: more than DuckDB looks up one by one. */
const FAN_OUT = 20;

let synthetic: SyntheticStore;
let index: DuckDbIndex;
/** The DuckDB index with its lookups only: a walk that asked SQL would fail. */
let walkOnly: IndexEngine;
/** The DuckDB index with its SQL only: the recursive queries Athena runs. */
let sqlOnly: IndexEngine;
let records: LineageGraph;
let template: ActivityRecord;
/** Every artifact the jobs below read or wrote. */
const artifacts: ArtifactRef[] = [];
/** When the next step starts: every fourth job starts a day later, so the index holds several days. */
let clock = Date.UTC(2026, 0, 3);
let jobsWritten = 0;
const DAY_MS = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  synthetic = await syntheticStore("voxtrail-index-walk-", 2);
  const [first] = synthetic.jobs;
  template = await readJson(
    synthetic.store,
    keys.lineage(first?.jobId as string, "Transcribe", 1),
    ActivityRecord,
  );
  // Chains of 7, 8 and 9 steps: the walk reaches its limit from either end of the last two.
  for (const steps of [7, 8, 9]) {
    const chain = Array.from({ length: steps + 1 }, (_, step) => artifact(`chain${steps}/a${step}`));
    await writeJob(
      `vm-walk-chain${steps}`,
      chain.slice(1).map((output, step) => ({ inputs: [chain[step] as ArtifactRef], outputs: [output] })),
    );
  }
  // A failed attempt off the 7-step chain: impact counts it, trace never follows it.
  await writeJob("vm-walk-failed", [
    { inputs: [artifact("chain7/a3")], outputs: [artifact("failed/out")], outcome: "failed" },
  ]);
  // Two records writing each other's input: the walk goes round until its limit.
  const [y0, y1] = [artifact("cycle/y0"), artifact("cycle/y1")];
  await writeJob("vm-walk-cycle", [
    { inputs: [y0], outputs: [y1] },
    { inputs: [y1], outputs: [y0] },
  ]);
  // One source read by a job that writes many keys, each read by a job of its own.
  const fanned = Array.from({ length: FAN_OUT }, (_, reader) => artifact(`fan/out${reader}`));
  await writeJob("vm-walk-fan", [{ inputs: [artifact("fan/source")], outputs: fanned }]);
  for (const [reader, input] of fanned.entries())
    await writeJob(`vm-walk-fan${reader}`, [{ inputs: [input], outputs: [artifact(`fan/next${reader}`)] }]);
  await reindexLineage(synthetic.store);

  index = (await openDuckDbIndex(synthetic.store)) as DuckDbIndex;
  walkOnly = { query: () => Promise.reject(new Error("the walk asked for SQL")), lookup: index.lookup };
  sqlOnly = { query: index.query };
  records = LineageGraph.of(await readLineage(synthetic.store, { from: "summaries" }));
});

afterAll(async () => {
  await index?.close();
  await synthetic?.remove();
});

/** An artifact under `artifacts/walk/`, named by `path` (the same ref each time it is asked for). */
function artifact(path: string): ArtifactRef {
  const key = `artifacts/walk/${path}`;
  const known = artifacts.find((ref) => ref.key === key);
  if (known) return known;
  const ref: ArtifactRef = {
    kind: "transcript",
    uri: synthetic.store.uri(key),
    key,
    sha256: createHash("sha256").update(key).digest("hex"),
    bytes: key.length,
    contentType: "application/json",
  };
  artifacts.push(ref);
  return ref;
}

interface Step {
  inputs: ArtifactRef[];
  outputs: ArtifactRef[];
  outcome?: ActivityRecord["outcome"];
}

/** A job of one record per step (stages `Step0`, `Step1`, ...), and its lineage summary. */
async function writeJob(jobId: string, steps: Step[]): Promise<void> {
  const summary: LineageSummary = {
    schemaVersion: 1,
    jobId,
    writtenAt: new Date().toISOString(),
    records: [],
  };
  if (jobsWritten++ % 4 === 0) clock += DAY_MS;
  for (const [number, { inputs, outputs, outcome = "succeeded" }] of steps.entries()) {
    const at = new Date(clock++).toISOString();
    const record: ActivityRecord = {
      ...template,
      activityId: randomUUID(),
      jobId,
      stage: `Step${number}`,
      startedAt: at,
      endedAt: at,
      outcome,
      inputs,
      outputs,
    };
    const key = keys.lineage(jobId, record.stage, 1);
    const body = `${JSON.stringify(record)}\n`;
    await synthetic.store.put(key, body, { contentType: "application/json" });
    summary.records.push({ key, sha256: createHash("sha256").update(body).digest("hex"), record });
  }
  await synthetic.store.put(keys.lineageSummary(jobId), `${JSON.stringify(summary)}\n`, {
    contentType: "application/json",
  });
}

/** The answer, or the name of the error it threw: so that refusals compare too. */
async function outcome<T>(answer: () => T | Promise<T>): Promise<T | { error: string }> {
  try {
    return await answer();
  } catch (error) {
    return { error: (error as Error).name };
  }
}

describe("the DuckDB index's walk by lookups", () => {
  it("selects what the recursive SQL selects, for every name of every artifact", async () => {
    const refs = [
      ...artifacts,
      ...synthetic.jobs.flatMap((job) => [job.source, ...Object.values(job.artifacts)]),
    ];
    // The fan-out's keys by key only: their other names check nothing the rest do not.
    const namesOf = (ref: ArtifactRef) =>
      ref.key.includes("/fan/")
        ? [ref.key]
        : [ref.key, ref.uri, ref.sha256.toUpperCase(), `s3://elsewhere/${ref.key}`];
    const names = [...refs.flatMap(namesOf), "artifacts/walk/nothing"];
    let tooDeep = 0;
    /** Expects the index's answer to be the records' (which have no step limit) unless it refused as too deep. */
    const sameAsRecords = async (answer: unknown, fromRecords: () => unknown, name: string) => {
      if ((answer as { error?: string }).error === "IndexWalkTooDeep") tooDeep++;
      else expect(answer, name).toEqual(await outcome(fromRecords));
    };
    for (const name of names) {
      const traced = await outcome(() => traceFromIndex(walkOnly, name));
      expect(traced, name).toEqual(await outcome(() => traceFromIndex(sqlOnly, name)));
      await sameAsRecords(traced, () => trace(records, name), name);
      const impacted = await outcome(() => impactFromIndex(walkOnly, name));
      expect(impacted, name).toEqual(await outcome(() => impactFromIndex(sqlOnly, name)));
      await sameAsRecords(impacted, () => impact(records, name), name);
    }
    expect(tooDeep).toBeGreaterThan(0);
  });

  it(`stops at ${WALK_DEPTH} steps, as the SQL does`, async () => {
    const last = (steps: number) => `artifacts/walk/chain${steps}/a${steps}`;
    expect(await traceFromIndex(walkOnly, last(7))).toEqual(trace(records, last(7)));
    expect(await impactFromIndex(walkOnly, "artifacts/walk/chain7/a0")).toEqual(
      impact(records, "artifacts/walk/chain7/a0"),
    );
    for (const steps of [8, 9]) {
      await expect(traceFromIndex(walkOnly, last(steps))).rejects.toBeInstanceOf(IndexWalkTooDeep);
      await expect(impactFromIndex(walkOnly, `artifacts/walk/chain${steps}/a0`)).rejects.toBeInstanceOf(
        IndexWalkTooDeep,
      );
    }
    await expect(traceFromIndex(walkOnly, "artifacts/walk/cycle/y0")).rejects.toThrow(
      /more than 8 steps deep here; ask the records instead/,
    );
  });

  it("looks up each key and each job's records once, and a name as a uri or sha256 only where it could be one", async () => {
    const asked: string[] = [];
    const counting: IndexEngine = {
      query: walkOnly.query,
      lookup: (table, column, values, columns) => {
        for (const value of values) asked.push(`${table}.${column}=${value}`);
        return index.lookup(table, column, values, columns);
      },
    };
    const source = synthetic.jobs[0]?.source as ArtifactRef;
    const answer = await impactFromIndex(counting, source.key);
    expect(answer).toEqual(impact(records, source.key));
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.filter((lookup) => lookup.startsWith("records.job="))).toHaveLength(answer.jobs.length);
    expect(asked.filter((lookup) => /^edges\.(uri|sha256|record_key)=/.test(lookup))).toEqual([]);
    asked.length = 0;
    await impactFromIndex(counting, source.uri);
    await impactFromIndex(counting, source.sha256.toUpperCase());
    expect(asked).toContain(`edges.uri=${source.uri}`);
    expect(asked).toContain(`edges.sha256=${source.sha256}`);
  });

  it("reads a key's edges and a job's records only from the days their lookup filters may hold", async () => {
    // A copy of the store whose other days' files are garbage once the index is open: reading one fails.
    const copy = await mkdtemp(join(tmpdir(), "voxtrail-index-filters-"));
    try {
      await cp(synthetic.store.root, copy, { recursive: true });
      const store = new DirectoryStore({ root: copy });
      const opened = (await openDuckDbIndex(store)) as DuckDbIndex;
      try {
        const { manifest } = opened;
        const filters = (await lookupFiltersOf(store, manifest, false)) as LookupFilters;
        const asked = [
          ["edges", "artifacts/walk/fan/out3"],
          ["edges", "artifacts/walk/fan/next3"],
          ["records", "vm-walk-fan"],
          ["records", "vm-walk-fan3"],
        ] as const;
        const days = Object.keys(manifest.days);
        const held = new Set(asked.flatMap(([table, value]) => filters.daysWith(table, value, days)));
        const ruledOut = days.filter((day) => !held.has(day));
        expect(ruledOut.length).toBeGreaterThan(days.length / 2);
        for (const day of ruledOut) {
          for (const table of ["edges", "records"] as const)
            await writeFile(
              fileURLToPath(store.uri(manifest.days[day]?.files[table] as string)),
              "not parquet",
            );
        }
        const answer = await impactFromIndex(opened, "artifacts/walk/fan/out3");
        expect(answer).toEqual(impact(records, "artifacts/walk/fan/out3"));
        expect(answer.jobs).toContain("vm-walk-fan3");
        // A lookup the filters do not answer reads every day's file, and meets the garbage.
        const fan3 = artifact("fan/out3");
        await expect(opened.lookup("edges", "uri", [fan3.uri], ["key"])).rejects.toThrow();
      } finally {
        await opened.close();
      }
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it("reaches failed attempts and fan-outs of more keys than it looks up one by one", async () => {
    expect((await impactFromIndex(walkOnly, "artifacts/walk/chain7/a3")).jobs).toContain("vm-walk-failed");
    const fanned = await impactFromIndex(walkOnly, "artifacts/walk/fan/source");
    expect(fanned.jobs).toHaveLength(FAN_OUT + 1);
    expect(fanned.artifacts).toHaveLength(2 * FAN_OUT);
  });
});
