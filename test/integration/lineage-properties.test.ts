import type { KeyObject } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { Writable } from "node:stream";
import { jobsRun, signLineage } from "@voxtrail/cli/sign-lineage";
import type { ExecutionLiveness, ObjectStore } from "@voxtrail/core";
import { tempRoot } from "@voxtrail/functions/kernel";
import {
  defaultSigningKeyPath,
  erase,
  LINEAGE_DIGESTS_PREFIX,
  LineageGraph,
  LocalSigner,
  listDigestKeys,
  readLineage,
  signatureKey,
  verify,
  verifyDigests,
} from "@voxtrail/lineage";
import {
  checkLineageIndex,
  compactLineageIndex,
  latestManifest,
  reindexLineage,
  tableParquet,
} from "@voxtrail/lineage/edge-index";
import { type JobResult, LocalRuntime } from "@voxtrail/local";
import { SimulatedTranscriber } from "@voxtrail/providers";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, RAM_TEMP_ROOT, sha256Of, writeTone } from "../support/caller-tones";
import { forgeJob, putJsonObject, readJsonObject, rewriteSummary } from "../support/lineage-tampering";
import { SilenceSynthesizer } from "../support/stub-engines";

/**
 * The property of issue 39's "Done when": over any interleaving of honest runs (one or two at
 * once), signers (two at once), index compactions and erasures (of finished jobs, and of a job
 * whose run is still in flight), and tampering by someone who can write the store but holds no
 * signing key, `voxtrail lineage verify` (verify with this machine's key trusted, grace 0 as for
 * a local store, the auditor's kept head, and the index check) finds nothing in an honest store
 * and names every tamper; and no object or version an erased job wrote is left anywhere in the
 * store's directory or the temp root.
 */

/** The names uploads use: a run takes from the first two, the run beside it from the other two. */
const NAMES = ["a.wav", "b.wav", "c.wav", "d.wav"] as const;
/** Three callers, each a distinct voicemail (tone and length). */
const CALLER_TONES = [
  { hz: 220, seconds: 0.25 },
  { hz: 330, seconds: 0.3 },
  { hz: 440, seconds: 0.35 },
];

/** One `voxtrail run`: its files (distinct names), and whether it lived to sign (else killed before). */
interface RunSpec {
  files: Array<{ name: number; caller: number }>;
  signs: boolean;
}

type Operation =
  /** One run, or two at once; with `eraseInFlight`, a job of theirs is erased while they run. */
  | { op: "run"; runs: RunSpec[]; eraseInFlight: boolean }
  /** `lineage sign --job` for every finished job no run signed: by one signer, or split between two at once. */
  | { op: "sign"; twoSigners: boolean }
  /** `lineage reindex` (rebuild) or the compaction a run ends with. */
  | { op: "index"; rebuild: boolean }
  /** `lineage erase` by one of the job's artifacts' keys (exact), of the `job % jobs`-th job. */
  | { op: "erase"; job: number }
  | { op: "tamper"; tamper: Tamper };

type Tamper =
  | { kind: "delete-digests" }
  /** With `withJobs`, the jobs only it covered go too (records, summary, artifacts, claims, report). */
  | { kind: "delete-head"; withJobs: boolean }
  | { kind: "forge-job"; job: number }
  | { kind: "edit-index"; what: "parquet" | "manifest" }
  | { kind: "edit-records"; job: number; record: number };

/** The key the index check's findings are compared under: whichever manifest was latest. */
const INDEX_CHECKED = "lineage-index/";

const TAMPER_KINDS = ["delete-digests", "delete-head", "forge-job", "edit-index", "edit-records"] as const;

const runSpec = (names: readonly [number, number]): fc.Arbitrary<RunSpec> =>
  fc.record({
    files: fc
      .subarray([...names], { minLength: 1, maxLength: 2 })
      .chain((picked) =>
        fc.tuple(...picked.map((name) => fc.record({ name: fc.constant(name), caller: fc.nat(2) }))),
      ),
    // Most runs live to sign; one in six is killed first (its jobs are signed later, or by `sign`).
    signs: fc.nat(5).map((n) => n > 0),
  });

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("run" as const),
      runs: fc.oneof(fc.tuple(runSpec([0, 1])), fc.tuple(runSpec([0, 1]), runSpec([2, 3]))) as fc.Arbitrary<
        RunSpec[]
      >,
      eraseInFlight: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("sign" as const), twoSigners: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("index" as const), rebuild: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("erase" as const), job: fc.nat(7) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("tamper" as const),
      tamper: fc.oneof(
        fc.constant({ kind: "delete-digests" as const }),
        fc.record({ kind: fc.constant("delete-head" as const), withJobs: fc.boolean() }),
        fc.record({ kind: fc.constant("forge-job" as const), job: fc.nat(7) }),
        fc.record({
          kind: fc.constant("edit-index" as const),
          what: fc.constantFrom("parquet" as const, "manifest" as const),
        }),
        fc.record({ kind: fc.constant("edit-records" as const), job: fc.nat(7), record: fc.nat(9) }),
      ),
    }),
  },
);

/** One job as the model knows it. */
interface ModelJob {
  jobId: string;
  /** The sha256 of every object it wrote: its source version, its artifacts, its report. */
  wrote: Set<string>;
  /** Its artifact keys, as it finished. */
  artifacts: string[];
  /** How many times a signer was given it (a run of its file, or `sign`). */
  signings: number;
  erased: boolean;
}

/**
 * What verify must say about one tamper: every entry of `all` is a list of findings
 * (`[problem, key]`) of which at least one must be reported.
 */
interface Expectation {
  tamper: Tamper["kind"];
  all: Array<Array<[string, string]>>;
}

/** The state of one sequence. */
interface World {
  store: ObjectStore;
  storeDir: string;
  runtime: LocalRuntime;
  jobs: Map<string, ModelJob>;
  /** The chain's head as the auditor kept it: from verify after each honest signing, until the first tamper. */
  head?: { sequence: number; sha256: string };
  tampered: boolean;
  expectations: Expectation[];
  /** Expectations computed at the end: what later honest runs may mend (re-sign, reindex) is not expected. */
  deferred: Array<() => Expectation | Promise<Expectation>>;
  /** Runs in flight: what the erasure's liveness answers from. */
  runsInFlight: number;
  /** Every job an erasure named. */
  erased: Set<string>;
  /**
   * Bytes that stand outside the model's jobs, which no erasure of theirs may take: the source of a
   * job a tamper deleted (it deleted what the job wrote), and the copies a forged job holds.
   */
  bytesBesideJobs: Set<string>;
  forged: number;
  /**
   * A Parquet file of the index was edited and no rebuild has mended it since: a compaction that
   * rewrites its day refuses (LineageIndexTampered), and a run then says it did not index.
   */
  indexFileEdited: boolean;
}

const engines = { transcriber: new SimulatedTranscriber(), synthesizer: new SilenceSynthesizer() };
let workDir: string;
let callers: Caller[];
let publicKey: KeyObject;
/** How often each case was exercised, over every sequence: each must have been. */
const exercised = new Map<string, number>();
const count = (what: string) => exercised.set(what, (exercised.get(what) ?? 0) + 1);

beforeAll(async () => {
  workDir = await mkdtemp(join(RAM_TEMP_ROOT, "voxtrail-lineage-properties-"));
  callers = await Promise.all(
    CALLER_TONES.map(({ hz, seconds }) => writeTone(join(workDir, `caller-${hz}.wav`), hz, seconds)),
  );
  // The key the CLI signs with and `lineage verify` trusts for a local store (the tests' own).
  publicKey = await (await LocalSigner.loadOrCreate(defaultSigningKeyPath())).publicKey();
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("lineage over any interleaving of runs, signers, erasures and tampering", () => {
  it("verify passes every honest sequence and names every tamper; an erased job leaves nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 3, maxLength: 6 }), async (operations) => {
        const storeDir = await mkdtemp(join(workDir, "store-"));
        const runtime = await LocalRuntime.start({ storeDir, engines, retryIntervalMs: 1 });
        const world: World = {
          store: runtime.store,
          storeDir,
          runtime,
          jobs: new Map(),
          tampered: false,
          expectations: [],
          deferred: [],
          runsInFlight: 0,
          erased: new Set(),
          bytesBesideJobs: new Set(),
          forged: 0,
          indexFileEdited: false,
        };
        try {
          for (const operation of operations) await apply(world, operation);
          // A later run given the same files signs what a killed run left: the honest end.
          await signUnsigned(world, false);
          await checkStore(world);
        } finally {
          await runtime.close();
          await rm(storeDir, { recursive: true, force: true });
        }
      }),
      { numRuns: 200 },
    );
    console.log("lineage properties exercised:", Object.fromEntries(exercised));
    for (const what of [...TAMPER_KINDS, "erase-finished", "erase-in-flight", "two-signers", "two-runs"]) {
      expect(exercised.get(what) ?? 0, `${what} was never exercised`).toBeGreaterThan(0);
    }
  }, 900_000);
});

async function apply(world: World, operation: Operation): Promise<void> {
  switch (operation.op) {
    case "run":
      return runs(world, operation);
    case "sign":
      return signUnsigned(world, operation.twoSigners);
    case "index":
      if (!operation.rebuild) return indexAsRunsDo(world);
      await reindexLineage(world.store);
      world.indexFileEdited = false;
      return;
    case "erase": {
      const live = [...world.jobs.values()].filter((job) => !job.erased);
      const job = live[operation.job % Math.max(live.length, 1)];
      if (!job) return;
      count("erase-finished");
      await eraseJob(world, job.artifacts[0] as string);
      return;
    }
    case "tamper":
      return tamper(world, operation.tamper);
  }
}

/**
 * The runs, at once, each as `voxtrail run` does: run its files, sign the jobs of its files that
 * ended (unless it was killed first), compact the index. With `eraseInFlight`, the first job one
 * of them starts is erased as soon as it has written something, while the runs go on: the erasure
 * waits for them (its liveness: a run of this process is in flight, as the CLI's erase sees another
 * `voxtrail run`'s process alive), then erases everything the job wrote.
 */
async function runs(world: World, { runs, eraseInFlight }: Extract<Operation, { op: "run" }>) {
  if (runs.length > 1) count("two-runs");
  if (runs.filter((spec) => spec.signs).length > 1) count("two-signers");
  const before = new Set((await world.store.list(KEY_FOLDERS.lineage)).map(jobOfRecordKey));
  world.runsInFlight += runs.length;
  const running = Promise.all(runs.map((spec) => oneRun(world, spec)));
  let settled = false;
  const done = running.finally(() => {
    settled = true;
  });
  try {
    if (eraseInFlight) await eraseOneInFlight(world, before, () => settled);
  } finally {
    // Whatever the erasure did, the runs end before the sequence goes on (or its store is removed).
    await done;
  }
}

/**
 * Erases the first job new to the store (not in `before`) as soon as it has a record naming what
 * it wrote, while its run goes on; nothing if the runs settle first.
 */
async function eraseOneInFlight(world: World, before: Set<string>, settled: () => boolean): Promise<void> {
  // As soon as a job new to this store has a record naming what it wrote: erase that.
  for (; !settled(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    let named: string | undefined;
    for (const key of await world.store.list(KEY_FOLDERS.lineage)) {
      if (before.has(jobOfRecordKey(key)) || named !== undefined) continue;
      const record = (await readJsonObject(world.store, key)) as { outputs: Array<{ key: string }> };
      named = record.outputs[0]?.key;
    }
    if (named === undefined) continue;
    if (await eraseJob(world, named)) count("erase-in-flight");
    break;
  }
}

async function oneRun(world: World, spec: RunSpec): Promise<void> {
  try {
    const files = spec.files.map(({ name, caller }) => ({
      name: NAMES[name] as string,
      path: (callers[caller] as Caller).path,
    }));
    const results = await world.runtime.run(files, { concurrency: 2 });
    for (const result of results) {
      expect(["SUCCEEDED", "DUPLICATE"], JSON.stringify(result.error)).toContain(result.status);
      if (!world.jobs.has(result.jobId)) {
        const job = await jobWritten(world.store, result);
        // Erased while it ran, if the erasure did not wait for its run.
        job.erased = world.erased.has(job.jobId);
        world.jobs.set(result.jobId, job);
      }
    }
    if (!spec.signs) return;
    // As `voxtrail run` ends: index, then sign (the digest names the generation holding its jobs).
    await indexAsRunsDo(world);
    await sign(world, [jobsRun(results)]);
  } finally {
    world.runsInFlight -= 1;
  }
}

/**
 * Compacts the index as a run ends: a compaction refused because an index file was edited
 * (`LineageIndexTampered`) is what a run then reports, and goes on; any other failure is the test's.
 */
async function indexAsRunsDo(world: World): Promise<void> {
  try {
    await compactLineageIndex(world.store);
  } catch (error) {
    if (!(world.indexFileEdited && (error as Error).name === "LineageIndexTampered")) throw error;
    count("compaction refused an edited index file");
  }
}

/** What a job that just finished wrote: its source version's and every artifact's sha256. */
async function jobWritten(store: ObjectStore, result: JobResult): Promise<ModelJob> {
  const artifacts = await store.list(keys.artifactPrefix(result.jobId));
  expect(artifacts).not.toEqual([]);
  const wrote = new Set<string>([result.report?.source.sha256 as string]);
  for (const key of [...artifacts, keys.report(result.jobId)]) {
    for (const { versionId } of await store.versions(key)) {
      wrote.add(sha256Of(await store.getBytes(key, { versionId })));
    }
  }
  return { jobId: result.jobId, wrote, artifacts, signings: 0, erased: false };
}

/** `lineage sign --job` for each finished job no signer was given yet, by one signer or two at once. */
async function signUnsigned(world: World, twoSigners: boolean): Promise<void> {
  const unsigned = [...world.jobs.values()].filter((job) => job.signings === 0).map((job) => job.jobId);
  if (unsigned.length === 0) return;
  if (!twoSigners) return sign(world, [unsigned]);
  count("two-signers");
  // Two signers at once: each its half, or (one job) both the same job.
  const half = Math.ceil(unsigned.length / 2);
  await sign(
    world,
    unsigned.length === 1 ? [unsigned, unsigned] : [unsigned.slice(0, half), unsigned.slice(half)],
  );
}

/**
 * Signs each list of jobs at once, as the CLI does (`signLineage`, this machine's key); the
 * auditor then keeps the chain's head verify reports, as long as no one has tampered with the store.
 */
async function sign(world: World, groups: string[][]): Promise<void> {
  const said: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, next) {
      said.push(String(chunk));
      next();
    },
  });
  const outcomes = await Promise.all(groups.map((jobs) => signLineage(world.store, jobs, out)));
  expect(outcomes, said.join("")).toEqual(groups.map(() => true));
  for (const jobId of groups.flat()) {
    const job = world.jobs.get(jobId);
    if (job) job.signings += 1;
  }
  if (!world.tampered) {
    const { head } = await verifyDigests(world.store, [publicKey]);
    if (head?.sequence !== undefined) world.head = { sequence: head.sequence, sha256: head.sha256 };
  }
}

/** Erases by `key`, as `lineage erase` does on a local store; resolves to whether it waited for a run. */
async function eraseJob(world: World, key: string): Promise<boolean> {
  const liveness: ExecutionLiveness = { isRunning: async () => world.runsInFlight > 0 };
  let waited = false;
  const graph = LineageGraph.of(await readLineage(world.store, { from: "records" }));
  const result = await erase(world.store, graph, key, {
    liveness,
    waiting: {
      onWait: () => {
        waited = true;
      },
      // The CLI asks twice a second, for runs of minutes; these runs take a tenth of one.
      pollMs: 10,
    },
  });
  for (const jobId of result.jobs) {
    world.erased.add(jobId);
    const job = world.jobs.get(jobId);
    if (job) job.erased = true;
  }
  return waited;
}

/** Tampers as someone who can write the store but holds no signing key, and says what verify must name. */
async function tamper(world: World, tamper: Tamper): Promise<void> {
  const { store } = world;
  const live = [...world.jobs.values()].filter((job) => !job.erased);
  const digestKeys = await listDigestKeys(store);
  switch (tamper.kind) {
    case "delete-digests":
    case "delete-head": {
      const deleted = tamper.kind === "delete-digests" ? digestKeys : digestKeys.slice(-1);
      if (deleted.length === 0) return;
      const kept = digestKeys.filter((key) => !deleted.includes(key));
      const keptCover = new Set(await coveredBy(store, kept));
      const covered = (await coveredBy(store, deleted)).filter((jobId) => !keptCover.has(jobId));
      for (const key of deleted) {
        await store.delete(key);
        await store.delete(signatureKey(key));
      }
      // Issue 39's fourth reproduction: the newest digest deleted with the jobs it covered.
      const gone =
        tamper.kind === "delete-head" && tamper.withJobs
          ? covered.filter((id) => live.some((job) => job.jobId === id))
          : [];
      for (const jobId of gone) {
        await deleteJob(store, jobId);
        // Its source upload stays (the tamperer deleted what the job wrote): not erased bytes.
        for (const sha256 of world.jobs.get(jobId)?.wrote ?? []) world.bytesBesideJobs.add(sha256);
        world.jobs.delete(jobId);
      }
      if (gone.length > 0) count("delete-head with its jobs");
      expectDigestsGone(
        world,
        tamper.kind,
        covered.filter((jobId) => !gone.includes(jobId)),
      );
      break;
    }
    case "forge-job": {
      const from = live[tamper.job % Math.max(live.length, 1)];
      if (!from) return;
      const fake = `vm-${String(++world.forged).padStart(20, "0")}`;
      await forgeJob(store, from.jobId, fake);
      // Its copies are the forged job's own: erasing the real one never erases them (nor the
      // forgery, which verify names), and erasure by their hash is refused as ambiguous.
      for (const sha256 of from.wrote) world.bytesBesideJobs.add(sha256);
      // Never signed (no run signs what it did not make): added after a digest, or unsigned past the grace.
      world.expectations.push({
        tamper: tamper.kind,
        all: [
          [
            ["job-not-digested", keys.lineageSummary(fake)],
            ["job-not-signed", keys.lineageSummary(fake)],
          ],
        ],
      });
      break;
    }
    case "edit-index": {
      const latest = await latestManifest(store);
      const day = latest && Object.values(latest.manifest.days).find((each) => each.jobs > 0);
      if (!latest || !day) return;
      if (tamper.what === "parquet") {
        // A day's jobs table rewritten without its rows: the edges still name the jobs.
        await store.put(day.files.jobs, tableParquet("jobs", []), {
          contentType: "application/vnd.apache.parquet",
        });
        world.indexFileEdited = true;
      } else {
        // The manifest forgets a day: its jobs are no longer in the index.
        const days = Object.fromEntries(
          Object.entries(latest.manifest.days).filter(([, each]) => each !== day),
        );
        await putJsonObject(store, latest.key, { ...latest.manifest, days });
      }
      // Named while the latest generation still holds the edit; a later compaction or rebuild
      // writes a generation of its own (from the records of the jobs it re-indexes), which the
      // check then judges instead.
      const edited = tamper.what === "parquet" ? day.files.jobs : latest.key;
      world.deferred.push(async () => {
        const now = await latestManifest(store);
        const holds =
          tamper.what === "parquet"
            ? Object.values(now?.manifest.days ?? {}).some((each) => each.files.jobs === edited)
            : now?.key === edited;
        if (!holds) count("edit-index superseded by a later generation");
        return {
          tamper: tamper.kind,
          all: holds
            ? [
                ["index-mismatch", "index-missing-job", "index-file-changed"].map((problem) => [
                  problem,
                  INDEX_CHECKED,
                ]),
              ]
            : [],
        };
      });
      break;
    }
    case "edit-records": {
      const signed = live.filter((each) => each.signings > 0);
      const job = signed[tamper.job % Math.max(signed.length, 1)];
      if (!job) return;
      const records = await store.list(keys.lineagePrefix(job.jobId));
      const key = records[tamper.record % records.length] as string;
      const record = await readJsonObject(store, key);
      await putJsonObject(store, key, { ...record, timings: [], processors: [] });
      await rewriteSummary(store, job.jobId);
      // While a digest that signed the job stands, the record stays named (its first signed hash
      // holds for good), and the summary too unless a later run of the job's file signed it as it
      // now is. With none (deleted, before or after), the job is named as no digest vouching for
      // it; unless a later run of its file signed it again after the deletion (which the
      // auditor's head names: the deletion, not this edit).
      const summaryKey = keys.lineageSummary(job.jobId);
      const signings = job.signings;
      const signedBy = await digestsCovering(store, job.jobId);
      world.deferred.push(async () => {
        if (world.jobs.get(job.jobId) !== job) {
          // A later tamper deleted the job, edit and all: that tamper's findings name it. A later
          // run of the same bytes at the same name (the same upload, so the same job id) may have
          // made the job again, honestly: that job is not the one edited.
          count("edit-records of a job deleted after");
          return { tamper: tamper.kind, all: [] };
        }
        const standing = await digestsCovering(store, job.jobId);
        const resigned = job.signings > signings;
        if ([...signedBy].some((digest) => standing.has(digest))) {
          return {
            tamper: tamper.kind,
            all: [
              [["record-changed", key]],
              ...(resigned ? [] : [[["summary-changed", summaryKey] as [string, string]]]),
            ],
          };
        }
        if (standing.size > 0 && resigned) {
          count("edit-records signed again after its digests were deleted");
          return { tamper: tamper.kind, all: [] };
        }
        return {
          tamper: tamper.kind,
          all: [
            [
              ["job-not-signed", summaryKey],
              ["job-not-digested", summaryKey],
            ],
          ],
        };
      });
      break;
    }
  }
  count(tamper.kind);
  world.tampered = true;
}

/**
 * Digests deleted (all, or the head). With the head the auditor kept (from before any tamper), the
 * chain no longer ends there: `digest-head-missing`, or `digest-head-replaced` once a later digest
 * took its place. Either way, each job only they covered is `job-not-signed` (`job-not-digested` once a later
 * digest exists) unless a later run of
 * its file signed it again; with no digest left at all, `digests-missing` too.
 */
function expectDigestsGone(world: World, tamper: Tamper["kind"], covered: string[]): void {
  const head = world.head;
  if (!head || world.tampered) {
    // The auditor kept no head past an earlier tamper (which is named): only the jobs can tell.
    if (covered.length === 0) count(`${tamper} past the kept head, nothing left to name it`);
  } else {
    const key = `${LINEAGE_DIGESTS_PREFIX}s${String(head.sequence).padStart(12, "0")}.json`;
    world.expectations.push({
      tamper,
      all: [
        [
          ["digest-head-missing", key],
          ["digest-head-replaced", key],
        ],
      ],
    });
  }
  // Each job as it stands now: one deleted by a later tamper and made again by a later run of the
  // same upload (the same job id) is another job, which this deletion did not touch.
  const jobs = new Map(covered.map((jobId) => [jobId, world.jobs.get(jobId)]));
  const signings = new Map(covered.map((jobId) => [jobId, world.jobs.get(jobId)?.signings ?? 0]));
  world.deferred.push(async () => {
    const unsigned = covered.filter(
      (jobId) =>
        world.jobs.get(jobId) === jobs.get(jobId) &&
        (world.jobs.get(jobId)?.signings ?? 0) === signings.get(jobId),
    );
    const anyDigest = (await listDigestKeys(world.store)).length > 0;
    return {
      tamper,
      all: [
        ...unsigned.map(
          (jobId): Array<[string, string]> => [
            // Unsigned past the grace, or, once a later digest exists, added after it.
            ["job-not-signed", keys.lineageSummary(jobId)],
            ["job-not-digested", keys.lineageSummary(jobId)],
          ],
        ),
        ...(unsigned.length > 0 && !anyDigest
          ? [[["digests-missing", LINEAGE_DIGESTS_PREFIX] as [string, string]]]
          : []),
      ],
    };
  });
}

/** Deletes a job as someone with write access would: its records, summary, artifacts, claims and report. */
async function deleteJob(store: ObjectStore, jobId: string): Promise<void> {
  for (const prefix of [keys.lineagePrefix(jobId), keys.artifactPrefix(jobId), keys.claimPrefix(jobId)]) {
    for (const key of await store.list(prefix)) await store.delete(key);
  }
  await store.delete(keys.lineageSummary(jobId));
  await store.delete(keys.report(jobId));
}

/** The digests in the store that cover `jobId`, each as its key and the sha256 of its bytes. */
async function digestsCovering(store: ObjectStore, jobId: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const key of await listDigestKeys(store)) {
    const bytes = await store.getBytes(key);
    const digest = JSON.parse(bytes.toString("utf8")) as { jobs: Array<{ jobId: string }> };
    if (digest.jobs.some((job) => job.jobId === jobId)) found.add(`${key} ${sha256Of(bytes)}`);
  }
  return found;
}

/** The jobs the digests at `digestKeys` cover. */
async function coveredBy(store: ObjectStore, digestKeys: string[]): Promise<string[]> {
  const jobs = new Set<string>();
  for (const key of digestKeys) {
    const digest = (await readJsonObject(store, key)) as { jobs: Array<{ jobId: string }> };
    for (const job of digest.jobs) jobs.add(job.jobId);
  }
  return [...jobs];
}

/**
 * Verify as `voxtrail lineage verify --expect-head` does on a local store (this machine's key
 * trusted, no grace, the index checked too): nothing in an honest store, every tamper named; and
 * no byte any erased job wrote anywhere in the store's directory or the temp root.
 */
async function checkStore(world: World): Promise<void> {
  const { store } = world;
  const graph = LineageGraph.of(await readLineage(store, { from: "records" }));
  const result = await verify(store, graph, {
    trustedKeys: [publicKey],
    signingGraceMs: 0,
    ...(world.head ? { expectHead: world.head } : {}),
  });
  const index = await checkLineageIndex(store, graph.activities);
  const found = [
    ...result.issues.map((each) => [each.problem, each.key] as [string, string]),
    ...index.findings.map((each) => [each.problem, INDEX_CHECKED] as [string, string]),
  ];
  const said = found.map(([problem, key]) => `${problem} ${key}`);
  const expectations = [...world.expectations];
  for (const each of world.deferred) expectations.push(await each());
  count(world.tampered ? "tampered sequence" : "honest sequence");
  if (!world.tampered) expect(said, "an honest store").toEqual([]);
  for (const { tamper, all } of expectations) {
    for (const anyOf of all) {
      expect(
        anyOf.some(([problem, key]) => said.includes(`${problem} ${key}`)),
        `${tamper}: none of ${JSON.stringify(anyOf)} in ${JSON.stringify(said)}`,
      ).toBe(true);
    }
  }
  await checkErasedLeaveNothing(world);
}

/**
 * After erasures: no key of an erased job's own (artifacts, report) anywhere in the store's
 * directory, its versions (`.versions/`) and sidecars (`.meta/`) included; and no file under the
 * temp root (the store, its index, reports, summaries, temporary files) holds the bytes of any
 * object an erased job wrote that no job still standing also wrote.
 */
async function checkErasedLeaveNothing(world: World): Promise<void> {
  const erased = [...world.jobs.values()].filter((job) => job.erased);
  if (erased.length === 0) return;
  const standing = new Set<string>([
    ...world.bytesBesideJobs,
    ...[...world.jobs.values()].filter((job) => !job.erased).flatMap((job) => [...job.wrote]),
  ]);
  const gone = new Set(erased.flatMap((job) => [...job.wrote]).filter((sha256) => !standing.has(sha256)));
  const ownPrefixes = erased.flatMap((job) => [keys.artifactPrefix(job.jobId), keys.report(job.jobId)]);
  const inputs = new Set(callers.map((caller) => caller.path));
  // The stages' temp directories (named by job and stage) are this process's temp root's.
  const stageTemp = await filesUnder(tempRoot()).catch(() => []);
  for (const file of stageTemp) {
    expect(
      erased.some((job) => file.includes(job.jobId)),
      `${file}: an erased job's temp file`,
    ).toBe(false);
  }
  for (const file of [...(await filesUnder(workDir)), ...stageTemp]) {
    if (inputs.has(file)) continue;
    const inStore = relative(world.storeDir, file).split(sep).join("/");
    const key = await keyOf(inStore, file);
    expect(
      ownPrefixes.some((prefix) => key.startsWith(prefix)),
      `${inStore} is under an erased job's own keys`,
    ).toBe(false);
    expect(gone.has(sha256Of(await readFile(file))), `${file} holds an erased job's bytes`).toBe(false);
  }
}

/** The store key a file of the store's directory holds (a version's sidecar names it), or its path. */
async function keyOf(inStore: string, file: string): Promise<string> {
  if (inStore.startsWith(".meta/")) return inStore.slice(".meta/".length).replace(/\.json$/, "");
  if (inStore.startsWith(".versions/") && file.endsWith(".json")) {
    return String((JSON.parse(await readFile(file, "utf8")) as { key?: unknown }).key);
  }
  return inStore;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** The job a record's key (`lineage/<jobId>/<stage>-<attempt>.json`) is of. */
function jobOfRecordKey(key: string): string {
  return key.slice(KEY_FOLDERS.lineage.length).split("/")[0] as string;
}
