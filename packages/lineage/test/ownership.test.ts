import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erasureScope } from "../src/erasure-scope";
import { ErasureAmbiguous } from "../src/errors";
import { LineageGraph } from "../src/lineage-graph";
import { type LineageSnapshot, readLineage } from "../src/lineage-snapshot";
import { ownership } from "../src/verify-checks/ownership";
import type { VerifyContext } from "../src/verify-context";
import type { VerifyIssue } from "../src/verify-issues";
import { type SyntheticStore, syntheticStore } from "./synthetic-jobs";

const FORGED = "vm-f0f0f0f0f0f0f0f0f0f0";

let synthetic: SyntheticStore;
let snapshot: LineageSnapshot;

beforeAll(async () => {
  synthetic = await syntheticStore("voxtrail-ownership-", 2);
  snapshot = await readLineage(synthetic.store);
});

afterAll(() => synthetic.remove());

/** The store's lineage, plus a copy of job 1's records under another job's id: a forged job. */
function withForgedCopy(): LineageGraph {
  const original = synthetic.jobs[0]?.jobId as string;
  const copies = snapshot.activities
    .filter(({ record }) => record.jobId === original)
    .map((activity) => ({
      ...activity,
      key: activity.key.replace(original, FORGED),
      record: { ...activity.record, jobId: FORGED },
    }));
  return LineageGraph.of({ ...snapshot, activities: [...snapshot.activities, ...copies] });
}

/** The ownership check's findings over `graph`'s jobs, none erased. */
function ownershipFindings(graph: LineageGraph) {
  const context = { graph, jobIds: [...graph.jobs.keys()], erasedJobs: new Set<string>() };
  return ownership.run(context as unknown as VerifyContext) as VerifyIssue[];
}

describe("ownership is exclusive", () => {
  it("finds nothing shared between honest jobs", () => {
    expect(ownershipFindings(LineageGraph.of(snapshot))).toEqual([]);
  });

  it("names every output key and the source version two jobs claim as their own", () => {
    const [job] = synthetic.jobs;
    const findings = ownershipFindings(withForgedCopy());
    const keys = findings.map((each) => each.key).sort();
    expect(keys).toEqual(
      [job?.source.key, ...Object.values(job?.artifacts ?? {}).map((ref) => ref.key)].sort(),
    );
    expect(findings.every((each) => each.problem === "ownership-shared")).toBe(true);
    expect(findings.find((each) => each.key === job?.source.key)?.detail).toMatch(
      /^version \S+ of this source is read as their own upload by 2 jobs/,
    );
  });

  it("refuses to erase by a key two jobs claim, erasing neither", () => {
    const [job] = synthetic.jobs;
    const graph = withForgedCopy();
    expect(() => erasureScope(graph, job?.artifacts.transcript.key as string)).toThrow(ErasureAmbiguous);
    expect(erasureScope(LineageGraph.of(snapshot), job?.artifacts.transcript.key as string)).toEqual([
      job?.jobId,
    ]);
  });
});
