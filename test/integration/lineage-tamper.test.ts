import { generateKeyPairSync } from "node:crypto";
import { cp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Transcript, TranscriptionThrottled } from "@voxtrail/core";
import {
  LINEAGE_DIGESTS_PREFIX,
  LineageGraph,
  LocalSigner,
  readLineage,
  signatureKey,
  type VerifyResult,
  verify,
  writeDigest,
} from "@voxtrail/lineage";
import { BUNDLED_VOICEMAILS_DIR, LocalRuntime } from "@voxtrail/local";
import { SimulatedTranscriber } from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { beforeAll, describe, expect, it } from "vitest";
import {
  forgeJob,
  readJsonObject as json,
  putJsonObject as putJson,
  rewriteSummary,
} from "../support/lineage-tampering";
import { SilenceSynthesizer } from "../support/stub-engines";
import { temporaryDirectory } from "../support/temporary-directory";

/** Throttled once, on its first call: one job's Transcribe takes two attempts. */
class OnceThrottledTranscriber extends SimulatedTranscriber {
  #calls = 0;
  override async transcribe(wav16k: Uint8Array, options: { language: string }): Promise<Transcript> {
    if (this.#calls++ === 0) throw new TranscriptionThrottled("the service is busy (injected once)");
    return super.transcribe(wav16k, options);
  }
}

const workDir = temporaryDirectory("voxtrail-tamper-");
/** The store the two jobs ran in and the digest signed: each test tampers with a copy of it. */
const signedStore = () => join(workDir(), "signed");
let signer: LocalSigner;
/** The job whose Transcribe was retried, and the other one. */
let retried: string;
let other: string;

beforeAll(async () => {
  const runtime = await LocalRuntime.start({
    storeDir: signedStore(),
    engines: { transcriber: new OnceThrottledTranscriber(), synthesizer: new SilenceSynthesizer() },
    retryIntervalMs: 1,
  });
  try {
    const files = ["billing.wav", "no-message.wav"].map((name) => ({
      name,
      path: join(BUNDLED_VOICEMAILS_DIR, name),
    }));
    const results = await runtime.run(files, { concurrency: 1 });
    expect(results.map((result) => result.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    [retried, other] = results.map((result) => result.jobId) as [string, string];
  } finally {
    await runtime.close();
  }
  signer = await LocalSigner.loadOrCreate(join(workDir(), "keys", "signing-key.pem"));
  expect(await writeDigest(new DirectoryStore({ root: signedStore() }), signer)).toMatchObject({ jobs: 2 });
}, 120_000);

/** A copy of the signed store, tampered with by `tamper` as someone with write access would. */
async function tampered(
  name: string,
  tamper: (store: DirectoryStore) => Promise<void>,
): Promise<VerifyResult> {
  const root = join(workDir(), name);
  await cp(signedStore(), root, { recursive: true });
  const store = new DirectoryStore({ root });
  await tamper(store);
  return verify(store, LineageGraph.of(await readLineage(store)), {
    trustedKeys: [await signer.publicKey()],
  });
}

/** Each issue as `[problem, key]`. */
const found = (result: VerifyResult) => result.issues.map((issue) => [issue.problem, issue.key]);

describe("lineage verify against someone with write access to the store but not the signing key", () => {
  it("passes an untouched store: every record chained, every job signed", async () => {
    const result = await tampered("untouched", async () => {});
    expect(result.issues).toEqual([]);
    expect(result.signatures).toMatchObject({ digests: 1, signedJobs: 2, pendingJobs: [] });
    const transcribe2 = await json(
      new DirectoryStore({ root: signedStore() }),
      keys.lineage(retried, "Transcribe", 2),
    );
    expect(transcribe2.previousRecord).toEqual({
      key: keys.lineage(retried, "Transcribe", 1),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("names an edited record", async () => {
    const key = keys.lineage(other, "Reason", 1);
    const result = await tampered("edit-record", async (store) => {
      const record = await json(store, key);
      await putJson(store, key, { ...record, processors: [] });
    });
    expect(found(result)).toContainEqual(["record-changed", key]);
    expect(result.ok).toBe(false);
  });

  it("names a record edited together with its summary, consistently (hiding a boundary, faking a timing)", async () => {
    const key = keys.lineage(other, "Synthesize", 1);
    const result = await tampered("edit-record-and-summary", async (store) => {
      const record = await json(store, key);
      await putJson(store, key, { ...record, timings: [], processors: [] });
      await rewriteSummary(store, other);
    });
    expect(found(result)).toEqual(
      expect.arrayContaining([
        ["record-changed", key],
        ["summary-changed", keys.lineageSummary(other)],
      ]),
    );
  });

  it("names a deleted record", async () => {
    const key = keys.lineage(other, "Reason", 1);
    const result = await tampered("delete-record", (store) => store.delete(key));
    expect(found(result)).toContainEqual(["record-missing", key]);
  });

  it("names a deleted job", async () => {
    const result = await tampered("delete-job", async (store) => {
      for (const prefix of [keys.lineagePrefix(other), keys.artifactPrefix(other), keys.claimPrefix(other)]) {
        for (const key of await store.list(prefix)) await store.delete(key);
      }
      await store.delete(keys.lineageSummary(other));
      await store.delete(keys.report(other));
    });
    expect(found(result)).toEqual([["job-deleted", keys.lineagePrefix(other)]]);
  });

  it("names an added job", async () => {
    const fake = "vm-00000000000000000000";
    const result = await tampered("add-job", (store) => forgeJob(store, other, fake));
    // Forged consistently (re-chained, artifacts copied): only the digests and the shared source tell.
    expect(found(result)).toEqual(
      expect.arrayContaining([
        ["job-not-digested", keys.lineageSummary(fake)],
        ["ownership-shared", expect.stringMatching(/^incoming\/voicemail\//)],
      ]),
    );
    expect(found(result)).toHaveLength(2);
  });

  it("names reordered attempts", async () => {
    const first = keys.lineage(retried, "Transcribe", 1);
    const second = keys.lineage(retried, "Transcribe", 2);
    const result = await tampered("reorder", async (store) => {
      const [a, b] = [await store.getBytes(first), await store.getBytes(second)];
      await store.put(first, b, { contentType: "application/json" });
      await store.put(second, a, { contentType: "application/json" });
    });
    expect(found(result)).toEqual(
      expect.arrayContaining([
        ["records-reordered", first],
        ["records-reordered", second],
      ]),
    );
  });

  it("names a replaced digest: edited, or re-signed with another key", async () => {
    const [digest] = await new DirectoryStore({ root: signedStore() }).list(LINEAGE_DIGESTS_PREFIX);
    const edited = await tampered("edit-digest", async (store) => {
      const text = (await store.getBytes(digest as string)).toString("utf8").replace(other, retried);
      await store.put(digest as string, text, { contentType: "application/json" });
    });
    expect(found(edited)).toContainEqual(["digest-signature-invalid", digest]);

    const resigned = await tampered("resign-digest", async (store) => {
      const attacker = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
      const keyFile = join(workDir(), "attacker.pem");
      await writeFile(keyFile, attacker.export({ format: "pem", type: "pkcs8" }));
      await store.delete(digest as string, {
        versionId: (await store.head(digest as string))?.versionId as string,
      });
      await store.delete(signatureKey(digest as string), {
        versionId: (await store.head(signatureKey(digest as string)))?.versionId as string,
      });
      await writeDigest(store, await LocalSigner.loadOrCreate(keyFile));
    });
    expect(found(resigned).map(([problem]) => problem)).toContain("digest-untrusted-key");
    expect(resigned.ok).toBe(false);
  });
});
