import { join } from "node:path";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  LineageGraph,
  LocalSigner,
  listDigestKeys,
  markLocalRun,
  readLineage,
  signatureKey,
  type VerifyOptions,
  verify,
  writeDigest,
} from "../src/index";
import { type SyntheticStore, syntheticStore, writeSummaryOf, writeSyntheticJob } from "./synthetic-jobs";

const HOUR_MS = 60 * 60 * 1000;
/** The jobs end now (their summaries, as Finalize writes them); these tests verify a day later. */
const aDayLater = () => new Date(Date.now() + 24 * HOUR_MS);
/** Before the jobs ended. */
const anHourAgo = () => new Date(Date.now() - HOUR_MS);

/** Writes synthetic job `index` and ends it as Finalize does: a summary naming its records' hashes. */
async function finishedJob(index: number): Promise<string> {
  const { jobId } = await writeSyntheticJob(synthetic.store, index, Date.UTC(2026, 0, 1), false);
  await writeSummaryOf(synthetic.store, jobId);
  return jobId;
}

let synthetic: SyntheticStore;
let signer: LocalSigner;

let jobIds: string[];

beforeEach(async () => {
  synthetic = await syntheticStore("voxtrail-signing-absence-", 0);
  signer = await LocalSigner.loadOrCreate(join(synthetic.root, "keys", "signing-key.pem"));
  jobIds = [await finishedJob(1), await finishedJob(2), await finishedJob(3)];
});

afterEach(() => synthetic.remove());

const verifyStore = async (options: Omit<VerifyOptions, "trustedKeys"> = {}) =>
  verify(synthetic.store, LineageGraph.of(await readLineage(synthetic.store)), {
    now: aDayLater(),
    trustedKeys: [await signer.publicKey()],
    ...options,
  });

/** Each issue as `problem key`, sorted. */
const found = (result: Awaited<ReturnType<typeof verify>>) =>
  result.issues.map((issue) => `${issue.problem} ${issue.key}`).sort();

/** `problem key` of each job's summary, sorted. */
const summaryFindings = (problem: string, ids: string[]) =>
  ids.map((jobId) => `${problem} ${keys.lineageSummary(jobId)}`).sort();

/** Deletes a digest and its signature. */
async function deleteDigest(key: string): Promise<void> {
  await synthetic.store.delete(key);
  await synthetic.store.delete(signatureKey(key));
}

describe("absence of a signature is a finding", () => {
  it("names every finished job past the grace period, and the missing digests, when lineage-digests/ is deleted", async () => {
    const digest = await writeDigest(synthetic.store, signer, { jobs: jobIds });
    expect(found(await verifyStore())).toEqual([]);
    await deleteDigest(digest?.key as string);

    const result = await verifyStore();
    expect(result.ok).toBe(false);
    expect(found(result)).toEqual([
      "digests-missing lineage-digests/",
      ...summaryFindings("job-not-signed", jobIds),
    ]);
    // Inside the grace period the same jobs are only not signed yet.
    const fresh = await verifyStore({ signingGraceMs: 48 * HOUR_MS });
    expect(fresh.ok).toBe(true);
    expect(fresh.signatures?.pendingJobs).toEqual(jobIds);
  });

  it("keeps a run's jobs pending while the run is in progress, and names them once it ended unsigned", async () => {
    const run = await markLocalRun(synthetic.store, anHourAgo());
    const pending = await verifyStore({ signingGraceMs: 0 });
    expect(found(pending)).toEqual([]);
    expect(pending.signatures?.pendingJobs).toEqual(jobIds);

    await run.end();
    expect(await synthetic.store.list(keys.localRun("").replace(/\.json$/, ""))).toEqual([]);
    expect(found(await verifyStore({ signingGraceMs: 0 }))).toEqual([
      "digests-missing lineage-digests/",
      ...summaryFindings("job-not-signed", jobIds),
    ]);
  });

  it("does not count a run whose process is gone as in progress", async () => {
    // A marker as a killed run left it: a process id no process has.
    const run = await markLocalRun(synthetic.store, anHourAgo());
    const marker = JSON.parse((await synthetic.store.getBytes(run.key)).toString("utf8"));
    await synthetic.store.put(run.key, JSON.stringify({ ...marker, pid: 2 ** 22 + 1 }), {
      contentType: "application/json",
    });
    expect(found(await verifyStore({ signingGraceMs: 0 }))).toContain(
      `job-not-signed ${keys.lineageSummary(jobIds[0] as string)}`,
    );
  });

  it("signs only the jobs it is given: a job forged into the store is named, signed by no run", async () => {
    const [first, second, third] = jobIds as [string, string, string];
    await writeDigest(synthetic.store, signer, { jobs: [first, second] });
    // The next run signs its own job; the one nobody signed, finished before it, was added after
    // the fact.
    const next = await finishedJob(10);
    expect((await writeDigest(synthetic.store, signer, { jobs: [next] }))?.jobs).toBe(1);
    // A job forged in after the latest digest: past the grace period, nobody vouched for it.
    const forged = await finishedJob(9);

    expect(found(await verifyStore())).toEqual(
      [
        ...summaryFindings("job-not-digested", [third]),
        ...summaryFindings("job-not-signed", [forged]),
      ].sort(),
    );
  });

  it("names a chain that ends before the head the auditor kept, and a head replaced at its sequence", async () => {
    const [first, second, third] = jobIds as [string, string, string];
    await writeDigest(synthetic.store, signer, { jobs: [first] });
    await writeDigest(synthetic.store, signer, { jobs: [second, third] });
    const head = (await verifyStore()).signatures?.head;
    expect(head?.sequence).toBe(2);
    const expectHead = { sequence: 2, sha256: head?.sha256 as string };
    expect((await verifyStore({ expectHead })).ok).toBe(true);

    // The newest digest deleted: the shorter chain is valid, but not the one the auditor kept.
    const [, newest] = await listDigestKeys(synthetic.store);
    await deleteDigest(newest as string);
    const shortened = await verifyStore({ expectHead, signingGraceMs: 48 * HOUR_MS });
    // (Its jobs, finished before the first digest, are then named as added after it.)
    expect(found(shortened)).toEqual([
      "digest-head-missing lineage-digests/s000000000002.json",
      ...summaryFindings("job-not-digested", [second, third]),
    ]);

    // Signed again in its place: the sequence is back, its bytes are not the ones kept.
    await writeDigest(synthetic.store, signer, { jobs: [second, third] });
    const replaced = await verifyStore({ expectHead });
    expect(found(replaced)).toEqual(["digest-head-replaced lineage-digests/s000000000002.json"]);
  });
});
