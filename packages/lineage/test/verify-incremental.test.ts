import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LineageSummary } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  LineageGraph,
  LocalSigner,
  lastVerifiedDigest,
  readLineage,
  sha256Hex,
  type VerifyOptions,
  verify,
  writeDigest,
} from "../src/index";
import { NoVerifiedDigest, VerifySinceInvalid } from "../src/verify-since";
import { type SyntheticJob, writeSyntheticJob } from "./synthetic-jobs";

/** When the digest is signed: after jobs 1 to 4 were written, before job 5. */
const DIGEST_END = "2026-06-01T00:00:00.000Z";
/** When these tests verify: an hour after job 5 was written, inside the signing grace period. */
const VERIFIED_AT = new Date(Date.UTC(2026, 6, 1, 1));
/** Artifacts each synthetic job has re-hashed: its source, five artifacts and its report. */
const PER_JOB = 7;

let dir: string;
let store: DirectoryStore;
let signer: LocalSigner;
/** Jobs 1 to 4 signed by the digest, job 5 written after it. */
let jobs: SyntheticJob[];
let digestKey: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxtrail-verify-incremental-"));
  store = new DirectoryStore({ root: join(dir, "store") });
  signer = await LocalSigner.loadOrCreate(join(dir, "keys", "signing-key.pem"));
  jobs = [];
  for (let index = 1; index <= 4; index++) {
    const job = await writeSyntheticJob(store, index);
    await hashRecordsInSummary(job.jobId);
    jobs.push(job);
  }
  const digest = await writeDigest(store, signer, { now: () => new Date(DIGEST_END) });
  digestKey = digest?.key as string;
  jobs.push(await writeSyntheticJob(store, 5, Date.UTC(2026, 6, 1)));
});

afterEach(() => rm(dir, { recursive: true, force: true }));

/** Job `n` (1 to 5). */
const job = (n: number) => jobs[n - 1] as SyntheticJob;

const verifyStore = async (options: Omit<VerifyOptions, "trustedKeys"> = {}, trusted = true) =>
  verify(store, LineageGraph.of(await readLineage(store)), {
    now: VERIFIED_AT,
    ...options,
    ...(trusted ? { trustedKeys: [await signer.publicKey()] } : {}),
  });

/** Each issue as `[problem, key]`. */
const found = (result: Awaited<ReturnType<typeof verify>>) =>
  result.issues.map((issue) => [issue.problem, issue.key]);

const json = async (key: string) => JSON.parse((await store.getBytes(key)).toString("utf8"));

/** Adds each record's sha256 to the job's summary, as Finalize writes it: the digest signs them too. */
async function hashRecordsInSummary(jobId: string): Promise<void> {
  const summary = LineageSummary.parse(await json(keys.lineageSummary(jobId)));
  const records = await Promise.all(
    summary.records.map(async (entry) => ({ ...entry, sha256: sha256Hex(await store.getBytes(entry.key)) })),
  );
  await store.put(keys.lineageSummary(jobId), `${JSON.stringify({ ...summary, records })}\n`, {
    contentType: "application/json",
  });
}

describe("verify since the last verified digest", () => {
  it("re-hashes only the artifacts of jobs the digest does not cover, and checks every signature", async () => {
    expect(await lastVerifiedDigest(store, [await signer.publicKey()])).toEqual({
      key: digestKey,
      digestEnd: DIGEST_END,
    });
    const full = await verifyStore();
    expect(full.issues).toEqual([]);
    expect(full.artifactsChecked).toBe(5 * PER_JOB);

    const since = await verifyStore({ since: "last-digest" });
    expect(since.issues).toEqual([]);
    expect(since.artifactsChecked).toBe(PER_JOB);
    expect(since.incremental).toEqual({ since: DIGEST_END, digestKey, skippedJobs: 4 });
    expect(since.signatures).toMatchObject({ digests: 1, signedJobs: 4, pendingJobs: [job(5).jobId] });
  });

  it("names an artifact altered in a job after since", async () => {
    const { key } = job(5).artifacts.transcript;
    await store.put(key, '{"text":"altered"}', { contentType: "application/json" });
    expect(found(await verifyStore({ since: "last-digest" }))).toEqual([["hash-mismatch", key]]);
  });

  it("names a record of a signed job that no longer hashes as the digest says, and re-hashes that job", async () => {
    const jobId = job(2).jobId;
    const key = keys.lineage(jobId, "Reason", 1);
    await store.put(key, `${JSON.stringify({ ...(await json(key)), processors: [] }, null, 2)}\n`, {
      contentType: "application/json",
    });
    const result = await verifyStore({ since: "last-digest" });
    expect(found(result)).toContainEqual(["record-changed", key]);
    expect(result.artifactsChecked).toBe(2 * PER_JOB);
    expect(result.incremental?.skippedJobs).toBe(3);
  });

  it("names a summary of a signed job rewritten since the digest signed it", async () => {
    const key = keys.lineageSummary(job(3).jobId);
    // The same summary, serialised otherwise: its records agree, its bytes are not the signed ones.
    await store.put(key, JSON.stringify(await json(key), null, 1), { contentType: "application/json" });
    expect(found(await verifyStore({ since: "last-digest" }))).toEqual([["summary-changed", key]]);
  });

  it("finds an artifact deleted from a signed job in the listing; its bytes are left to a full verify", async () => {
    const deleted = job(1).artifacts.replyAudio.key;
    const altered = job(2).artifacts.replyText.key;
    await store.delete(deleted);
    await store.put(altered, "Altered.\n", { contentType: "text/plain; charset=utf-8" });
    expect(found(await verifyStore({ since: "last-digest" }))).toEqual([["missing-artifact", deleted]]);
    const full = found(await verifyStore());
    expect(full).toHaveLength(2);
    expect(full).toEqual(
      expect.arrayContaining([
        ["missing-artifact", deleted],
        ["hash-mismatch", altered],
      ]),
    );
  });

  it("with a time, re-hashes the jobs whose summaries were written at or after it", async () => {
    const { writtenAt } = await json(keys.lineageSummary(job(3).jobId));
    const result = await verifyStore({ since: new Date(writtenAt) });
    expect(result.issues).toEqual([]);
    expect(result.artifactsChecked).toBe(3 * PER_JOB);
    expect(result.incremental).toEqual({ since: writtenAt, skippedJobs: 2 });
  });

  it("refuses since without trusted keys or a valid time, and last-digest without a digest that verifies", async () => {
    await expect(verifyStore({ since: "last-digest" }, false)).rejects.toBeInstanceOf(VerifySinceInvalid);
    await expect(verifyStore({ since: new Date(Number.NaN) })).rejects.toBeInstanceOf(VerifySinceInvalid);
    const stranger = await LocalSigner.loadOrCreate(join(dir, "keys", "stranger.pem"));
    await expect(
      verify(store, LineageGraph.of(await readLineage(store)), {
        trustedKeys: [await stranger.publicKey()],
        since: "last-digest",
      }),
    ).rejects.toBeInstanceOf(NoVerifiedDigest);
  });
});
