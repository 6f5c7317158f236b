import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { ObjectStore } from "@voxtrail/core";
import { erase, LineageGraph, readLineage, verify } from "@voxtrail/lineage";
import { LocalRuntime } from "@voxtrail/local";
import { SimulatedTranscriber } from "@voxtrail/providers";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, RAM_TEMP_ROOT, sha256Of, writeTone } from "../support/caller-tones";
import { SilenceSynthesizer } from "../support/stub-engines";

/** The names voicemails are uploaded under: two, so that callers share keys. */
const NAMES = ["a.wav", "b.wav"] as const;
/** One tone per caller: four callers, four distinct voicemails. */
const CALLER_TONES_HZ = [220, 330, 440, 550];

type Operation =
  | { op: "upload"; name: (typeof NAMES)[number]; caller: number }
  /** Erases the chain `by` names, of the `job % jobs`-th job run so far (one of its artifacts by `artifact`). */
  | { op: "erase"; by: "sha256" | "artifact" | "source-key"; job: number; artifact: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("upload" as const),
      name: fc.constantFrom(...NAMES),
      caller: fc.nat(CALLER_TONES_HZ.length - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("erase" as const),
      by: fc.constantFrom("sha256" as const, "artifact" as const, "source-key" as const),
      job: fc.nat(5),
      artifact: fc.nat(7),
    }),
  },
);

/** One job as the model knows it: one object version, holding one caller's voicemail. */
interface ModelJob {
  jobId: string;
  key: string;
  caller: number;
  versionId: string;
  sha256: string;
  /** The keys under `artifacts/<jobId>/` once the job had run. */
  artifacts: string[];
  erased: boolean;
}

/** What an erasure should do: erase `chain`, or refuse because the target names several callers. */
type ExpectedErasure = { target: string; chain: ModelJob[] } | { target: string; ambiguous: true };

const engines = { transcriber: new SimulatedTranscriber(), synthesizer: new SilenceSynthesizer() };
let workDir: string;
let callers: Caller[];

beforeAll(async () => {
  workDir = await mkdtemp(join(RAM_TEMP_ROOT, "voxtrail-erasure-properties-"));
  callers = await Promise.all(CALLER_TONES_HZ.map((hz) => writeTone(join(workDir, `caller-${hz}.wav`), hz)));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

// The real local pipeline (directory store with versions, S3 events, the local state machine, the
// real stage handlers) with stub transcription and synthesis: after any sequence of uploads and
// erasures, no byte of a caller still standing was deleted, no byte of an erased caller is left,
// and `verify` agrees with what was erased.
describe("lineage erasure over the local pipeline", () => {
  it("deletes exactly the chains it names, whatever the uploads and erasures before", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 6 }), async (operations) => {
        const storeDir = await mkdtemp(join(workDir, "store-"));
        const runtime = await LocalRuntime.start({ storeDir, engines, retryIntervalMs: 1 });
        try {
          const jobs: ModelJob[] = [];
          for (const operation of operations) {
            if (operation.op === "upload") await upload(runtime, jobs, operation);
            else await eraseChain(runtime.store, jobs, operation);
            await checkInvariants(runtime.store, jobs);
          }
        } finally {
          await runtime.close();
          await rm(storeDir, { recursive: true, force: true });
        }
      }),
      { numRuns: 200 },
    );
  }, 600_000);
});

/**
 * Uploads the caller's voicemail under `name`: the same job, already done, when the key's current
 * version is that caller's; otherwise a new version and a new job.
 */
async function upload(
  runtime: LocalRuntime,
  jobs: ModelJob[],
  { name, caller }: Extract<Operation, { op: "upload" }>,
): Promise<void> {
  const key = keys.incomingVoicemail(name);
  const current = jobs.filter((job) => job.key === key && !job.erased).at(-1);
  const [result] = await runtime.run([{ name, path: callerAt(caller).path }], { concurrency: 1 });
  if (current?.caller === caller) {
    expect(result).toMatchObject({ status: "DUPLICATE", jobId: current.jobId });
    return;
  }
  expect(result?.status, JSON.stringify(result?.error)).toBe("SUCCEEDED");
  const { jobId, report } = result!;
  expect(jobs.map((job) => job.jobId)).not.toContain(jobId);
  const { versionId, sha256 } = report!.source;
  expect(sha256).toBe(callerAt(caller).sha256);
  expect(versionId).toBeDefined();
  const artifacts = await runtime.store.list(keys.artifactPrefix(jobId));
  expect(artifacts).not.toEqual([]);
  jobs.push({ jobId, key, caller, versionId: versionId!, sha256: sha256!, artifacts, erased: false });
}

/** Erases the chain the operation names, and checks that the erasure did what the model expects. */
async function eraseChain(
  store: ObjectStore,
  jobs: ModelJob[],
  operation: Extract<Operation, { op: "erase" }>,
): Promise<void> {
  if (jobs.length === 0) return;
  const expected = expectedErasure(jobs, operation);
  const graph = LineageGraph.of(await readLineage(store, {}));
  if ("ambiguous" in expected) {
    await expect(erase(store, graph, expected.target)).rejects.toMatchObject({ name: "ErasureAmbiguous" });
    return;
  }
  const result = await erase(store, graph, expected.target);
  expect(new Set(result.alreadyErased)).toEqual(idsOf(expected.chain.filter((job) => job.erased)));
  for (const job of expected.chain) job.erased = true;
}

/**
 * The chain an erasure target names: a derived artifact's key, its writer; a source's sha256,
 * every job of that caller, unless more than one of them is not yet erased (then the erasure must
 * refuse); a source key, every job that read it (erased ones too), unless those
 * not yet erased hold more than one caller's voicemail (then the erasure must refuse).
 */
function expectedErasure(
  jobs: ModelJob[],
  { by, job: jobIndex, artifact }: Extract<Operation, { op: "erase" }>,
): ExpectedErasure {
  const job = jobs[jobIndex % jobs.length]!;
  switch (by) {
    case "artifact":
      return { target: job.artifacts[artifact % job.artifacts.length]!, chain: [job] };
    case "sha256": {
      const holders = jobs.filter((other) => other.caller === job.caller);
      return holders.filter((holder) => !holder.erased).length > 1
        ? { target: job.sha256, ambiguous: true }
        : { target: job.sha256, chain: holders };
    }
    case "source-key": {
      const readers = jobs.filter((other) => other.key === job.key);
      const live = readers.filter((reader) => !reader.erased);
      return new Set(live.map((reader) => reader.caller)).size > 1
        ? { target: job.key, ambiguous: true }
        : { target: job.key, chain: readers };
    }
  }
}

/**
 * 1. Every job not erased keeps its source version, with its bytes, and its artifacts.
 * 2. Every erased job's source version and every version of its artifacts are gone, and no byte of
 *    a caller whose every job was erased is left under `incoming/` or `artifacts/`.
 * 3. `verify` finds nothing wrong, and reports as erased exactly the jobs erased.
 */
async function checkInvariants(store: ObjectStore, jobs: ModelJob[]): Promise<void> {
  for (const job of jobs) {
    if (job.erased) {
      expect(
        await store.head(job.key, { versionId: job.versionId }),
        `${job.jobId}'s source`,
      ).toBeUndefined();
      expect(await store.list(keys.artifactPrefix(job.jobId))).toEqual([]);
      for (const key of job.artifacts) expect(await store.versions(key), key).toEqual([]);
    } else {
      const source = await store.getBytes(job.key, { versionId: job.versionId });
      expect(sha256Of(source), `${job.jobId}'s source`).toBe(job.sha256);
      for (const key of job.artifacts) expect(await store.head(key), key).toBeDefined();
    }
  }

  const erasedCallerHashes = new Set(
    jobs
      .filter((job) => jobs.every((other) => other.caller !== job.caller || other.erased))
      .map((job) => job.sha256),
  );
  if (erasedCallerHashes.size > 0) {
    const scanned = new Set([
      ...(await store.list(KEY_FOLDERS.incoming)),
      ...(await store.list(KEY_FOLDERS.artifacts)),
      ...NAMES.map(keys.incomingVoicemail),
      ...jobs.flatMap((job) => job.artifacts),
    ]);
    for (const key of scanned) {
      for (const { versionId } of await store.versions(key)) {
        const sha256 = sha256Of(await store.getBytes(key, { versionId }));
        expect(
          erasedCallerHashes.has(sha256),
          `${key} version ${versionId} holds an erased caller's bytes`,
        ).toBe(false);
      }
    }
  }

  const verified = await verify(store, LineageGraph.of(await readLineage(store, {})));
  expect(verified.issues).toEqual([]);
  expect(new Set(verified.erased.map((entry) => entry.jobId))).toEqual(
    idsOf(jobs.filter((job) => job.erased)),
  );
}

function callerAt(index: number): Caller {
  const caller = callers[index];
  if (!caller) throw new Error(`no caller ${index}`);
  return caller;
}

function idsOf(jobs: ModelJob[]): Set<string> {
  return new Set(jobs.map((job) => job.jobId));
}
