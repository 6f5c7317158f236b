import { createHash, type KeyObject } from "node:crypto";
import { cp, mkdtemp, open, readFile, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import {
  defaultSigningKeyPath,
  LineageGraph,
  LocalSigner,
  readLineage,
  trace,
  verifyDigests,
  writeDigest,
} from "@voxtrail/lineage";
import {
  boundariesFromIndex,
  checkLineageIndex,
  compactLineageIndex,
  type IndexManifest,
  LineageIndexTampered,
  latestManifest,
  readTableParquet,
  reindexLineage,
  tableParquet,
  traceFromIndex,
  vacuumIndex,
} from "@voxtrail/lineage/edge-index";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../test/e2e/run-cli";
import {
  type SyntheticJob,
  syntheticStore,
  writeSummaryOf,
  writeSyntheticJob,
} from "../../lineage/test/synthetic-jobs";
import { openDuckDbIndex } from "../src/lineage-index/duckdb-index";
import { verifiedFilesPath } from "../src/lineage-index/verified-files";

/** The signed store each test copies: three jobs, indexed (generation 0), then signed, as a run ends. */
let signedRoot: string;
let work: string;
let jobs: SyntheticJob[];
let trusted: KeyObject[];
let removeSigned: () => Promise<void>;

beforeAll(async () => {
  let store: DirectoryStore;
  ({
    root: signedRoot,
    store,
    jobs,
    remove: removeSigned,
  } = await syntheticStore("voxtrail-index-proof-", 3));
  work = await mkdtemp(join(tmpdir(), "voxtrail-index-proof-copies-"));
  await reindexLineage(store);
  // The tests' signing key (VOXTRAIL_SIGNING_KEY): the CLI trusts it as this machine's.
  const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
  trusted = [await signer.publicKey()];
  expect(await writeDigest(store, signer, { jobs: jobs.map((job) => job.jobId) })).toMatchObject({
    jobs: 3,
    index: { generation: 0 },
  });
}, 60_000);

afterAll(async () => {
  await removeSigned();
  await rm(work, { recursive: true, force: true });
});

let copies = 0;
/** A copy of the signed store, changed by `change` as someone with write access (not the key) would. */
async function copyOf(
  change: (store: DirectoryStore) => Promise<void> = async () => {},
): Promise<DirectoryStore> {
  const root = join(work, `copy-${++copies}`);
  await cp(signedRoot, root, { recursive: true, preserveTimestamps: true });
  const store = new DirectoryStore({ root });
  await change(store);
  return store;
}

const manifestOf = async (store: DirectoryStore) => (await latestManifest(store))?.manifest as IndexManifest;
const onlyDay = (manifest: IndexManifest) => Object.values(manifest.days)[0] as IndexManifest["days"][string];

/** `trace` of `name` from the index as the CLI opens it, with the trusted keys. */
async function traceThroughIndex(store: DirectoryStore, name: string, keys = trusted) {
  const index = await openDuckDbIndex(store, { trustedKeys: keys, tables: ["edges", "records"] });
  if (!index) throw new Error("no index");
  try {
    return { index, tree: await traceFromIndex(index, name) };
  } finally {
    await index.close();
  }
}

/** An edges file rewritten with one row's key changed: a consistent Parquet file, other bytes. */
async function editEdges(store: DirectoryStore, key: string): Promise<void> {
  const rows = await readTableParquet("edges", await store.getBytes(key));
  const row = rows.find((each) => each.role === "output") as (typeof rows)[number];
  row.key = `${row.key}.forged`;
  await store.put(key, tableParquet("edges", rows), { contentType: "application/vnd.apache.parquet" });
}

/** The filters file at `key` with every day's bits cleared: a file that rules every value out. */
async function ruledOutEverywhere(store: DirectoryStore, key: string): Promise<Buffer> {
  const bytes = await store.getBytes(key);
  const header = bytes.indexOf(0x0a) + 1;
  return Buffer.concat([bytes.subarray(0, header), Buffer.alloc(bytes.length - header)]);
}

describe("the lineage index proves itself before it answers", () => {
  it("answers from the signed generation, every file it reads checked, as the records answer", async () => {
    const store = await copyOf();
    const name = jobs[0]?.artifacts.replyAudio.key as string;
    const { index, tree } = await traceThroughIndex(store, name);
    expect(index.proof).toMatchObject({ status: "proven", digestKey: "lineage-digests/s000000000001.json" });
    expect(index.proof.status === "proven" && index.proof.unsignedNewer).toBeFalsy();
    expect(index.unprovenFiles).toBe(0);
    expect(tree).toEqual(trace(LineageGraph.of(await readLineage(store)), name));
  });

  it("refuses, naming the file, when a Parquet file the question reads was edited; a question that does not read it answers", async () => {
    let edges = "";
    const store = await copyOf(async (s) => {
      edges = onlyDay(await manifestOf(s)).files.edges;
      await editEdges(s, edges);
    });
    const source = jobs[1]?.source.key as string;
    const refused = await traceThroughIndex(store, source).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LineageIndexTampered);
    expect((refused as Error).message).toContain(edges);
    expect((refused as Error).message).not.toContain(source);
    // boundaries reads the flows table only: untouched, so it answers.
    const index = await openDuckDbIndex(store, { trustedKeys: trusted, tables: ["flows"] });
    try {
      expect((await boundariesFromIndex(index as NonNullable<typeof index>)).length).toBeGreaterThan(0);
    } finally {
      await index?.close();
    }
  });

  it("remembers a file hashed once while it is unchanged on disk, and refuses it edited in place with its times put back", async () => {
    let edges = "";
    const store = await copyOf(async (s) => {
      edges = onlyDay(await manifestOf(s)).files.edges;
    });
    // A file is remembered only once it has not changed for two seconds (the kernel's coarse ctime).
    await setTimeout(2100);
    const source = jobs[0]?.source.key as string;
    expect((await traceThroughIndex(store, source)).index.proof.status).toBe("proven");
    const remembered = JSON.parse(await readFile(verifiedFilesPath(), "utf8"));
    expect(remembered).toHaveProperty([join(store.root, edges)]);
    expect((await traceThroughIndex(store, source)).index.proof.status).toBe("proven");
    // One byte changed in place, its access and modification times set back: its ctime moved.
    const path = join(store.root, edges);
    const { atime, mtime, size } = await stat(path);
    const file = await open(path, "r+");
    try {
      const byte = Buffer.alloc(1);
      await file.read(byte, 0, 1, Math.floor(size / 2));
      byte[0] = (byte[0] as number) ^ 0xff;
      await file.write(byte, 0, 1, Math.floor(size / 2));
    } finally {
      await file.close();
    }
    await utimes(path, atime, mtime);
    const refused = await traceThroughIndex(store, source).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LineageIndexTampered);
    expect((refused as Error).message).toContain(edges);
  });

  it("refuses, naming the manifest, when the signed manifest was edited (even to match an edited file)", async () => {
    const store = await copyOf(async (s) => {
      const latest = (await latestManifest(s)) as NonNullable<Awaited<ReturnType<typeof latestManifest>>>;
      const manifest = latest.manifest;
      const day = onlyDay(manifest);
      await editEdges(s, day.files.edges);
      const { sha256Hex } = await import("@voxtrail/lineage");
      (day.sha256 as Record<string, string>).edges = sha256Hex(await s.getBytes(day.files.edges));
      await s.put(latest?.key as string, `${JSON.stringify(manifest)}\n`, {
        contentType: "application/json",
      });
    });
    const refused = await traceThroughIndex(store, jobs[0]?.source.key as string).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LineageIndexTampered);
    expect((refused as Error).message).toMatch(
      /manifest lineage-index\/manifests\/g000000000000\.json has sha256 [0-9a-f]{64}, but digest lineage-digests\/s000000000001\.json signed/,
    );
  });

  it("does not use a newer generation no trusted digest names, forged or compacted since: it names it and answers from the signed one and the summaries since", async () => {
    let added: SyntheticJob | undefined;
    const store = await copyOf(async (s) => {
      // A job finished since, honestly compacted into generation 1, which nothing signed yet.
      added = await writeSyntheticJob(s, 4, Date.UTC(2026, 0, 2), false);
      await writeSummaryOf(s, added.jobId, { note: true });
      expect(await compactLineageIndex(s)).toMatchObject({ generation: 1, jobsWritten: 1 });
      // Then generation 2, forged: generation 1's manifest with an edited file and its hash to match.
      const latest = await latestManifest(s);
      const forged = structuredClone(latest?.manifest as IndexManifest);
      forged.generation = 2;
      const day = Object.values(forged.days)[0] as IndexManifest["days"][string];
      const copy = day.files.edges.replace(/g0+\d-/, "g000000000002-");
      await s.put(copy, await s.getBytes(day.files.edges), { contentType: "application/vnd.apache.parquet" });
      await editEdges(s, copy);
      const { sha256Hex } = await import("@voxtrail/lineage");
      day.files.edges = copy;
      (day.sha256 as Record<string, string>).edges = sha256Hex(await s.getBytes(copy));
      await s.put("lineage-index/manifests/g000000000002.json", `${JSON.stringify(forged)}\n`, {
        contentType: "application/json",
      });
    });
    const name = added?.source.key as string;
    const { index, tree } = await traceThroughIndex(store, name);
    expect(index.proof).toMatchObject({
      status: "proven",
      unsignedNewer: "lineage-index/manifests/g000000000002.json",
    });
    expect(index.manifest.generation).toBe(0);
    // The job compacted since is answered from its summary (its note is gone: the listing finds it).
    expect(index.pending).toBe(1);
    expect(tree).toEqual(trace(LineageGraph.of(await readLineage(store)), name));
  });

  it("reads a manifest written before files were hashed: answers, its files named unproven; a compaction from it hashes them", async () => {
    const store = await copyOf(async (s) => {
      const latest = (await latestManifest(s)) as NonNullable<Awaited<ReturnType<typeof latestManifest>>>;
      const manifest = latest.manifest;
      for (const day of Object.values(manifest.days)) delete day.sha256;
      await s.put(latest?.key as string, `${JSON.stringify(manifest)}\n`, {
        contentType: "application/json",
      });
      // Signed as it is now (the generation changed: a digest names it though no job is new).
      const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
      expect(await writeDigest(s, signer, { jobs: [] })).toMatchObject({ jobs: 0, index: { generation: 0 } });
    });
    const { index } = await traceThroughIndex(store, jobs[0]?.source.key as string);
    expect(index.proof.status).toBe("proven");
    expect(index.unprovenFiles).toBe(2);
    // A job on another day: generation 1 carries the old day, hashed now.
    await writeSyntheticJob(store, 5, Date.UTC(2026, 0, 3));
    expect(await compactLineageIndex(store)).toMatchObject({ generation: 1, jobsWritten: 1 });
    const next = await manifestOf(store);
    expect(Object.keys(next.days)).toHaveLength(2);
    expect(Object.values(next.days).every((day) => day.sha256 !== undefined)).toBe(true);
  });

  it("says the index is unproven, and answers, with no trusted key or no digest naming a generation; older digests still verify", async () => {
    const store = await copyOf();
    const { index } = await traceThroughIndex(store, jobs[0]?.source.key as string, []);
    expect(index.proof).toMatchObject({ status: "unproven", reason: "no-trusted-key" });
    // A store signed before digests named generations: its digest has no `index`.
    const old = await copyOf(async (s) => {
      await rm(join(s.root, "lineage-digests"), { recursive: true, force: true });
      await rm(join(s.root, "lineage-index"), { recursive: true, force: true });
      const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
      expect((await writeDigest(s, signer))?.index).toBeUndefined();
      await reindexLineage(s);
    });
    expect((await verifyDigests(old, trusted)).issues).toEqual([]);
    const unproven = await traceThroughIndex(old, jobs[0]?.source.key as string);
    expect(unproven.index.proof).toMatchObject({ status: "unproven", reason: "no-signed-generation" });
  });
});

describe("the vacuum and the signed generation", () => {
  it("keeps the generations of the last two hours (the signer's two runs), so the signed one answers while compactions move on", async () => {
    const store = await copyOf();
    for (const index of [7, 8, 9]) {
      const added = await writeSyntheticJob(store, index, Date.UTC(2026, 0, 1), false);
      await writeSummaryOf(store, added.jobId, { note: true });
      await compactLineageIndex(store);
    }
    await vacuumIndex(store, { keep: 1, graceMs: 0 });
    const source = jobs[0]?.source.key as string;
    const { index } = await traceThroughIndex(store, source);
    expect(index.manifest.generation).toBe(0);
    expect(index.pending).toBe(3);
    // Past the two hours, unsigned since: the signed generation is gone, and that is refused.
    await vacuumIndex(store, { keep: 1, graceMs: 0, keepSignedMs: 0 });
    const refused = await traceThroughIndex(store, source).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LineageIndexTampered);
    expect((refused as Error).message).toContain(
      "g000000000000.json, which digest lineage-digests/s000000000001.json signed, is gone",
    );
  });
});

describe("compaction over an edited file", () => {
  it("refuses, naming the file, when the signed generation's lookup filters were edited; a compaction will not carry them", async () => {
    let filters = "";
    const store = await copyOf(async (s) => {
      filters = (await manifestOf(s)).filters?.key as string;
      await s.put(filters, await ruledOutEverywhere(s, filters), { contentType: "application/octet-stream" });
    });
    const refused = await traceThroughIndex(store, jobs[0]?.artifacts.replyAudio.key as string).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(LineageIndexTampered);
    expect((refused as Error).message).toContain(filters);
    const added = await writeSyntheticJob(store, 6, Date.UTC(2026, 0, 1), false);
    await writeSummaryOf(store, added.jobId, { note: true });
    const carried = await compactLineageIndex(store).catch((error: unknown) => error);
    expect(carried).toBeInstanceOf(LineageIndexTampered);
    expect((carried as Error).message).toContain(filters);
  });

  it("refuses to carry an edited file's rows into a new generation, naming it; reindex rebuilds from the records", async () => {
    let edges = "";
    const store = await copyOf(async (s) => {
      edges = onlyDay(await manifestOf(s)).files.edges;
      await editEdges(s, edges);
    });
    // A job on the same day: the compaction rewrites that day from its files.
    const added = await writeSyntheticJob(store, 6, Date.UTC(2026, 0, 1), false);
    await writeSummaryOf(store, added.jobId, { note: true });
    const refused = await compactLineageIndex(store).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LineageIndexTampered);
    expect((refused as Error).message).toContain(edges);
    expect(await reindexLineage(store)).toMatchObject({ generation: 1, jobs: 4 });
  });
});

describe("lineage verify's index check", () => {
  it("names a day whose lookup filter rules out a key its rows hold, in a generation that records the filter's sha256", async () => {
    const store = await copyOf(async (s) => {
      const latest = (await latestManifest(s)) as NonNullable<Awaited<ReturnType<typeof latestManifest>>>;
      const manifest = latest.manifest;
      const forged = "lineage-index/filters/forged.bin";
      const body = await ruledOutEverywhere(s, manifest.filters?.key as string);
      await s.put(forged, body, { contentType: "application/octet-stream" });
      const next: IndexManifest = {
        ...manifest,
        generation: manifest.generation + 1,
        filters: { key: forged, sha256: createHash("sha256").update(body).digest("hex") },
      };
      await s.put(
        latest.key.replace(/g\d+\.json$/, `g${String(next.generation).padStart(12, "0")}.json`),
        JSON.stringify(next),
        { contentType: "application/json" },
      );
    });
    const { findings } = await checkLineageIndex(
      store,
      (await readLineage(store, { from: "records" })).activities,
    );
    expect(findings.map((f) => f.problem)).toEqual(jobs.map(() => "index-filter-mismatch"));
    expect(findings[0]?.detail).toMatch(
      /^the lookup filter of job vm-\S+'s day \(2026-01-0\d\) rules out \d+ value\(s\) its rows hold \(edges\.key, records\.job\)$/,
    );
    expect(findings.map((f) => f.detail).join("\n")).not.toContain("incoming/");
  });

  it("names a lookup filters file whose bytes differ from the sha256 its manifest records", async () => {
    let filters = "";
    const store = await copyOf(async (s) => {
      filters = (await manifestOf(s)).filters?.key as string;
      await s.put(filters, await ruledOutEverywhere(s, filters), { contentType: "application/octet-stream" });
    });
    const { findings } = await checkLineageIndex(
      store,
      (await readLineage(store, { from: "records" })).activities,
    );
    expect(findings.map((f) => f.problem)).toEqual(["index-file-changed"]);
    expect(findings[0]?.detail).toContain(filters);
  });

  it("names a file whose bytes differ from the sha256 its manifest records, beside the rows that differ", async () => {
    let edges = "";
    const store = await copyOf(async (s) => {
      edges = onlyDay(await manifestOf(s)).files.edges;
      await editEdges(s, edges);
    });
    const { findings } = await checkLineageIndex(
      store,
      (await readLineage(store, { from: "records" })).activities,
    );
    expect(findings.filter((f) => f.problem === "index-file-changed").map((f) => f.detail)).toEqual([
      expect.stringMatching(
        new RegExp(`^the file ${edges} has sha256 [0-9a-f]{64}, its manifest records [0-9a-f]{64}$`),
      ),
    ]);
    expect(findings.some((f) => f.problem === "index-mismatch")).toBe(true);
  });
});

describe("voxtrail lineage impact/boundaries on a local store", () => {
  it("answers from the signed index and says so; refuses an edited file by name, exit 1; reindex signs again", async () => {
    const store = await copyOf();
    const source = jobs[0]?.source.key as string;
    const ok = await runCli(["lineage", "impact", source, "--store", store.root, "--engine", "duckdb"]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(
      /answered from the lineage index, generation 0, signed by lineage-digests\/s000000000001\.json/,
    );
    expect(ok.stderr).not.toMatch(/unproven/);

    const edges = onlyDay(await manifestOf(store)).files.edges;
    await editEdges(store, edges);
    const refused = await runCli(["lineage", "impact", source, "--store", store.root]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`the lineage index file ${edges} has sha256`);

    // `lineage reindex` rebuilds the index from the records and signs the new generation.
    const reindexed = await runCli(["lineage", "reindex", "--store", store.root]);
    expect(reindexed.code).toBe(0);
    expect(reindexed.stderr).toMatch(
      /lineage signed: lineage-digests\/s000000000002\.json covers 0 job\(s\) and index generation 1/,
    );
    const again = await runCli(["lineage", "boundaries", "--store", store.root]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/generation 1, signed by lineage-digests\/s000000000002\.json/);
  }, 120_000);
});
