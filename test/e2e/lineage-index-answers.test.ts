import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDuckDbIndex } from "@voxtrail/cli/lineage-index";
import {
  boundaries,
  defaultSigningKeyPath,
  impact,
  LineageGraph,
  LocalSigner,
  openLineageEvents,
  readLineage,
  trace,
  writeDigest,
} from "@voxtrail/lineage";
import {
  boundariesFromIndex,
  graphFromIndex,
  impactFromIndex,
  traceFromIndex,
} from "@voxtrail/lineage/edge-index";
import { BUNDLED_VOICEMAILS_DIR, collectInputFiles, type JobResult, LocalRuntime } from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyOfFixtureStore } from "../support/fixture-store";
import { SIMULATED_TRANSCRIBER, SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";
import { runCli } from "./run-cli";

let dir: string;
let store: DirectoryStore;
let results: JobResult[];

beforeAll(async () => {
  const work = await mkdtemp(join(tmpdir(), "voxtrail-lineage-index-"));
  // This suite reindexes and adds a job: its own copy of the fixture run (simulated transcriber).
  ({ dir, results } = await copyOfFixtureStore(join(work, "store")));
  store = new DirectoryStore({ root: dir });
}, 600_000);

afterAll(() => rm(join(dir, ".."), { recursive: true, force: true }));

const lineage = (...args: string[]) => runCli(["lineage", ...args, "--store", dir]);

/** Every name an auditor may give for each artifact the fixture run's records mention. */
async function everyName(): Promise<string[]> {
  const graph = LineageGraph.of(await readLineage(store, { from: "records" }));
  const refs = graph.activities.flatMap(({ record }) => [...record.inputs, ...record.outputs]);
  return [
    ...new Set(refs.flatMap((ref) => [ref.key, ref.uri, ref.sha256, `s3://${store.bucket}/${ref.key}`])),
  ];
}

describe("the lineage edge index over a run of every fixture (simulated transcriber)", () => {
  it("gives the record-walking answers to trace, impact, boundaries and export after reindex", async () => {
    expect(results.length).toBeGreaterThanOrEqual(10);
    const reindexed = await lineage("reindex", "--json");
    expect(reindexed.code).toBe(0);
    expect(JSON.parse(reindexed.stdout)).toMatchObject({ jobs: results.length, jobsWritten: results.length });

    const graph = LineageGraph.of(await readLineage(store, { from: "records" }));
    const index = await openDuckDbIndex(store);
    if (!index) throw new Error("reindex wrote no index");
    try {
      expect(index.pending).toBe(0);
      const names = await everyName();
      expect(names.length).toBeGreaterThan(200);
      for (const name of names) {
        const fromRecords = (ask: () => unknown) => {
          try {
            return ask();
          } catch (error) {
            return { error: (error as Error).name };
          }
        };
        const fromIndex = (ask: () => Promise<unknown>) =>
          ask().catch((error: Error) => ({ error: error.name }));
        expect(await fromIndex(() => traceFromIndex(index, name)), name).toEqual(
          fromRecords(() => trace(graph, name)),
        );
        expect(await fromIndex(() => impactFromIndex(index, name)), name).toEqual(
          fromRecords(() => impact(graph, name)),
        );
      }
      expect(await boundariesFromIndex(index)).toEqual(boundaries(graph));
      const since = graph.activities.map(({ record }) => record.startedAt).sort()[40] as string;
      expect(await boundariesFromIndex(index, { since })).toEqual(boundaries(graph, { since }));
      const events = (g: LineageGraph) => openLineageEvents(g, { bucket: store.bucket });
      expect(events(await graphFromIndex(index))).toEqual(events(graph));
    } finally {
      await index.close();
    }
  });

  it("answers the same through the CLI, from the index by default and from the records on request", async () => {
    const { jobId, key } = results[0] as JobResult;
    const questions = [
      ["trace", `artifacts/${jobId}/reply.wav`],
      ["trace", key],
      ["impact", key],
      ["boundaries"],
      ["export"],
    ];
    for (const question of questions) {
      const indexed = await lineage(...question, "--json");
      const walked = await lineage(...question, "--json", "--engine", "records");
      expect(indexed.code, question.join(" ")).toBe(0);
      expect(indexed.stdout, question.join(" ")).toBe(walked.stdout);
    }
    const text = await lineage("trace", key);
    expect(text.stderr).toMatch(/answered from the lineage index, generation \d+/);
    const refused = await lineage("trace", key, "--engine", "sqlite");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--engine must be one of records, duckdb/);
  });

  it("counts a job finished after the last compaction from its summary, then the next run indexes it", async () => {
    expect((await lineage("reindex")).code).toBe(0);
    const copy = join(dir, "..", `${Date.now()}-late-caller.wav`);
    await copyFile(join(BUNDLED_VOICEMAILS_DIR, "billing.wav"), copy);
    const runtime = await LocalRuntime.start({ storeDir: dir, providers: SIMULATED_TRANSCRIBER });
    let late: JobResult;
    try {
      [late] = (await runtime.run(await collectInputFiles([copy]), { concurrency: 1 })) as [JobResult];
    } finally {
      await runtime.close();
    }
    const index = await openDuckDbIndex(store);
    try {
      expect(index?.pending).toBe(1);
    } finally {
      await index?.close();
    }
    const indexed = await lineage("impact", late.key, "--json");
    const walked = await lineage("impact", late.key, "--json", "--engine", "records");
    expect(JSON.parse(indexed.stdout).jobs).toEqual([late.jobId]);
    expect(indexed.stdout).toBe(walked.stdout);

    // The fixture store's run was the runtime's alone: sign its jobs as `voxtrail run` signs its
    // own at its end (the tests' key), so that verify below has only the late job to ask about.
    const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
    await writeDigest(store, signer, { jobs: results.map((result) => result.jobId) });
    // What `voxtrail run` does at its end (here with nothing left to run: the job is done, by a
    // run that did not sign it, and this run of its file signs it).
    const ran = await runCli(["run", "--store", dir, copy], SIMULATED_TRANSCRIBER_ENV);
    await rm(copy, { force: true });
    expect(ran.stderr + ran.stdout).toMatch(/lineage indexed: 1 job\(s\) added or updated, 11 in the index/);
    // Indexed, then signed: the digest names the generation that holds the job (reindex above
    // signed its generation too, so the digest's place is not the second).
    expect(ran.stderr + ran.stdout).toMatch(
      /lineage indexed: [^\n]*\nlineage signed: lineage-digests\/s\d{12}\.json covers 1 job\(s\) and index generation \d+/,
    );
    const verified = await lineage("verify");
    expect(verified.code, verified.stdout).toBe(0);
  });
});
