import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LineageGraph, readLineage, verify } from "../src/index";
import { readSummaries } from "../src/verify-summaries";
import { type SyntheticStore, syntheticStore, writeSummaryOf } from "./synthetic-jobs";

/** Summaries enough that verify parses them on a worker thread. */
const JOBS = 72;

let synthetic: SyntheticStore;

beforeAll(async () => {
  synthetic = await syntheticStore("voxtrail-summary-copies-", JOBS);
  // As Finalize writes them: each record copied as its file holds it, with its bytes' sha256.
  for (const { jobId } of synthetic.jobs) await writeSummaryOf(synthetic.store, jobId);
}, 120_000);

afterAll(() => synthetic.remove());

const jobId = (n: number) => synthetic.jobs[n - 1]?.jobId as string;
const summaryFile = (n: number) => join(synthetic.root, ...keys.lineageSummary(jobId(n)).split("/"));
const readSummary = async (n: number) =>
  JSON.parse((await synthetic.store.getBytes(keys.lineageSummary(jobId(n)))).toString("utf8"));

describe("verify's summary check on a worker thread", () => {
  it("takes every copy Finalize wrote as its record's bytes, and finds nothing", async () => {
    const read = await readSummaries(synthetic.store, { jobId: undefined, concurrency: 8 });
    expect(read).toHaveLength(JOBS);
    expect(read.every((summary) => "outline" in summary.read)).toBe(true);
    const result = await verify(synthetic.store, readLineage(synthetic.store).then(LineageGraph.of));
    expect(result.issues).toEqual([]);
  });

  it("names each altered summary as checking it alone (on this thread) does", async () => {
    const { store, root } = synthetic;
    // 1: a copy altered; 2: a record altered after its summary; 3: not JSON; 4: another job's
    // name; 5: a record left out; 6: a copy equal to its record, keys in another order; 7: a
    // record's hash altered, its copy intact.
    const one = await readSummary(1);
    one.records[1].record.processors[0].model = "another-model";
    await writeFile(summaryFile(1), JSON.stringify(one));
    const changed = keys.lineage(jobId(2), "Synthesize", 1);
    const record = JSON.parse((await store.getBytes(changed)).toString("utf8"));
    record.processors[0].provider = "somewhere-else";
    await writeFile(join(root, ...changed.split("/")), `${JSON.stringify(record, null, 2)}\n`);
    await writeFile(summaryFile(3), "{not json");
    await writeFile(summaryFile(4), JSON.stringify({ ...(await readSummary(4)), jobId: jobId(5) }));
    const five = await readSummary(5);
    five.records.pop();
    await writeFile(summaryFile(5), JSON.stringify(five));
    const six = await readSummary(6);
    six.records[0].record = Object.fromEntries(Object.entries(six.records[0].record).reverse());
    await writeFile(summaryFile(6), JSON.stringify(six));
    const seven = await readSummary(7);
    seven.records[0].sha256 = "0".repeat(64);
    await writeFile(summaryFile(7), JSON.stringify(seven));

    const read = await readSummaries(store, { jobId: undefined, concurrency: 8 });
    const handedBack = read.filter((summary) => !("outline" in summary.read)).map(({ key }) => key);
    expect(handedBack.sort()).toEqual([1, 3, 6, 7].map((n) => keys.lineageSummary(jobId(n))).sort());
    const all = await verify(store, readLineage(store).then(LineageGraph.of));
    const problems = (issues: typeof all.issues) => issues.map(({ problem, key }) => [problem, key]);
    expect(problems(all.issues)).toEqual(
      [
        ["summary-mismatch", keys.lineageSummary(jobId(1))],
        ["record-changed", changed],
        ["summary-mismatch", keys.lineageSummary(jobId(3))],
        ["summary-mismatch", keys.lineageSummary(jobId(4))],
        ["summary-mismatch", keys.lineageSummary(jobId(5))],
        ["record-changed", seven.records[0].key],
      ].sort(([, a = ""], [, b = ""]) => (a < b ? -1 : 1)),
    );
    for (const n of [1, 2, 3, 4, 5, 6, 7]) {
      const alone = await verify(store, LineageGraph.of(await readLineage(store, { jobId: jobId(n) })), {
        jobId: jobId(n),
      });
      expect(alone.issues).toEqual(all.issues.filter((found) => found.jobId === jobId(n)));
    }
  });
});
