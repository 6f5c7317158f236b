import { generateKeyPairSync } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DigestChainContended, DigestFile, digestKey } from "../src/digests/digest-file";
import { fingerprintOf, SigningKeyInvalid, verifySignature } from "../src/digests/digest-signer";
import type { DigestVerification } from "../src/digests/verify-digests";
import { ChainNotRepairable } from "../src/errors";
import {
  defaultSigningKeyPath,
  LINEAGE_DIGESTS_PREFIX,
  LocalSigner,
  repairForkedChain,
  sha256Hex,
  signatureKey,
  verifyDigests,
  writeDigest,
} from "../src/index";

let dir: string;
let store: DirectoryStore;
let signer: LocalSigner;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxtrail-digests-"));
  store = new DirectoryStore({ root: join(dir, "store") });
  signer = await LocalSigner.loadOrCreate(join(dir, "keys", "signing-key.pem"));
});

afterEach(() => rm(dir, { recursive: true, force: true }));

/** A clock that reads `iso`. */
const at = (iso: string) => () => new Date(iso);

/** Writes a (record-less) lineage summary for `jobId` straight into the store. */
async function putSummary(jobId: string, writtenAt: string, note = ""): Promise<Buffer> {
  const records = [{ key: `lineage/${jobId}/ingest-01.json`, sha256: "0".repeat(64), record: {} }];
  const body = Buffer.from(JSON.stringify({ schemaVersion: 1, jobId, writtenAt, records, note }));
  await store.put(keys.lineageSummary(jobId), body, { contentType: "application/json" });
  return body;
}

/** What a digest names of a summary {@link putSummary} wrote: its one record's key and hash. */
function recordsOf(jobId: string): Array<{ key: string; sha256: string }> {
  return [{ key: `lineage/${jobId}/ingest-01.json`, sha256: "0".repeat(64) }];
}

async function readDigest(key: string): Promise<DigestFile> {
  return DigestFile.parse(JSON.parse((await store.getBytes(key)).toString("utf8")));
}

/** Writes `digest` under its key, signed by `signer`, `.sig` first as `writeDigest` does; resolves to its key. */
async function putSignedDigest(digest: DigestFile): Promise<string> {
  const key = digestKey(digest);
  const body = Buffer.from(`${JSON.stringify(digest, null, 2)}\n`);
  const signature = Buffer.from(await signer.sign(body)).toString("base64");
  await store.put(signatureKey(key), signature, { contentType: "text/plain" });
  await store.put(key, body, { contentType: "application/json" });
  return key;
}

/** A digest's `previous` naming the digest under `key`. */
async function linkTo(key: string): Promise<NonNullable<DigestFile["previous"]>> {
  return {
    key,
    sha256: sha256Hex(await store.getBytes(key)),
    signature: (await store.getBytes(signatureKey(key))).toString("utf8"),
  };
}

/** What a digest written by hand (as releases before sequences wrote them) holds: its signing and a job. */
async function handWritten() {
  const fingerprint = await signer.fingerprint();
  const signing = { algorithm: "ECDSA_SHA_256", keyId: signer.keyId, keyFingerprint: fingerprint } as const;
  const jobOf = (jobId: string, summary: Buffer) => ({
    jobId,
    summaryKey: keys.lineageSummary(jobId),
    summarySha256: sha256Hex(summary),
    records: recordsOf(jobId),
  });
  return { fingerprint, signing, jobOf };
}

/** Each issue as `[problem, key]`, in the order reported. */
const problems = (result: DigestVerification) => result.issues.map((issue) => [issue.problem, issue.key]);

describe("writeDigest", () => {
  it("covers new summaries only, chains to the previous digest, and writes nothing when nothing is new", async () => {
    const a = await putSummary("vm-a", "2026-12-02T06:00:00.000Z");
    const b = await putSummary("vm-b", "2026-12-02T06:30:00.000Z");
    const first = await writeDigest(store, signer, { now: at("2026-12-02T07:00:00.123Z") });
    const fingerprint = await signer.fingerprint();
    expect(first).toEqual({
      key: `${LINEAGE_DIGESTS_PREFIX}s000000000001.json`,
      jobs: 2,
    });
    const firstKey = first!.key;
    expect(await readDigest(firstKey)).toEqual({
      schemaVersion: 1,
      digestStart: "2026-12-02T06:00:00.000Z",
      digestEnd: "2026-12-02T07:00:00.123Z",
      sequence: 1,
      previous: null,
      jobs: [
        {
          jobId: "vm-a",
          summaryKey: keys.lineageSummary("vm-a"),
          summarySha256: sha256Hex(a),
          records: recordsOf("vm-a"),
        },
        {
          jobId: "vm-b",
          summaryKey: keys.lineageSummary("vm-b"),
          summarySha256: sha256Hex(b),
          records: recordsOf("vm-b"),
        },
      ],
      signing: { algorithm: "ECDSA_SHA_256", keyId: `local:${fingerprint}`, keyFingerprint: fingerprint },
    });
    const firstSignature = (await store.getBytes(signatureKey(firstKey))).toString("utf8");
    expect((await store.head(signatureKey(firstKey)))?.contentType).toBe("text/plain");
    expect(
      verifySignature(
        await signer.publicKey(),
        await store.getBytes(firstKey),
        Buffer.from(firstSignature, "base64"),
      ),
    ).toBe(true);

    expect(await writeDigest(store, signer, { now: at("2026-12-02T07:30:00.000Z") })).toBeUndefined();
    expect(await store.list(LINEAGE_DIGESTS_PREFIX)).toEqual([firstKey, signatureKey(firstKey)]);

    // A new job, and vm-a's summary rewritten (a rerun): both are covered.
    const c = await putSummary("vm-c", "2026-12-02T07:40:00.000Z");
    const rerun = await putSummary("vm-a", "2026-12-02T07:50:00.000Z", "rewritten");
    const second = await writeDigest(store, signer, { now: at("2026-12-02T08:00:00.000Z") });
    expect(second?.jobs).toBe(2);
    const digest = await readDigest(second!.key);
    expect(digest.digestStart).toBe("2026-12-02T07:00:00.123Z");
    expect(second?.key).toBe(`${LINEAGE_DIGESTS_PREFIX}s000000000002.json`);
    expect(digest.sequence).toBe(2);
    expect(digest.previous).toEqual({
      key: firstKey,
      sha256: sha256Hex(await store.getBytes(firstKey)),
      signature: firstSignature,
    });
    expect(digest.jobs).toEqual([
      {
        jobId: "vm-a",
        summaryKey: keys.lineageSummary("vm-a"),
        summarySha256: sha256Hex(rerun),
        records: recordsOf("vm-a"),
      },
      {
        jobId: "vm-c",
        summaryKey: keys.lineageSummary("vm-c"),
        summarySha256: sha256Hex(c),
        records: recordsOf("vm-c"),
      },
    ]);

    const result = await verifyDigests(store, [await signer.publicKey()]);
    expect(result.issues).toEqual([]);
    expect(result.digests).toBe(2);
    expect(result.latestEnd).toBe("2026-12-02T08:00:00.000Z");
    expect([...result.covered.keys()]).toEqual(["vm-a", "vm-b", "vm-c"]);
    // The rerun's summary as last signed, and each record as first signed.
    expect(result.covered.get("vm-a")).toEqual({
      summaryKey: keys.lineageSummary("vm-a"),
      summarySha256: sha256Hex(rerun),
      digestKey: second?.key,
      digestEnd: "2026-12-02T08:00:00.000Z",
    });
    expect(result.records.get("lineage/vm-a/ingest-01.json")).toEqual({
      jobId: "vm-a",
      sha256: "0".repeat(64),
      digestKey: firstKey,
    });
  });

  it("writes nothing when the store has no summaries", async () => {
    expect(await writeDigest(store, signer)).toBeUndefined();
    expect(await store.list(LINEAGE_DIGESTS_PREFIX)).toEqual([]);
  });

  it("keeps digests in key order when the clock goes back", async () => {
    await putSummary("vm-a", "2026-12-02T06:00:00.000Z");
    const first = await writeDigest(store, signer, { now: at("2026-12-02T07:00:00.000Z") });
    await putSummary("vm-b", "2026-12-02T06:10:00.000Z");
    const second = await writeDigest(store, signer, { now: at("2026-12-02T06:59:00.000Z") });
    expect((await readDigest(second!.key)).digestEnd).toBe("2026-12-02T07:00:00.001Z");
    expect(second!.key > first!.key).toBe(true);
    expect((await verifyDigests(store, [await signer.publicKey()])).issues).toEqual([]);
  });
});

describe("writeDigest, several signers at once", () => {
  it("keeps one chain: each signer that loses the next place chains onto the winner's digest", async () => {
    await putSummary("vm-first", "2026-12-02T06:00:00.000Z");
    const first = await writeDigest(store, signer);
    // A CLI run and the cloud signer (and two more) ending together, each with its own key and jobs.
    const signers = [
      signer,
      ...(await Promise.all(
        [1, 2, 3].map((index) => LocalSigner.loadOrCreate(join(dir, "keys", `signer-${index}.pem`))),
      )),
    ];
    const written = await Promise.all(
      signers.map(async (each, index) => {
        await putSummary(`vm-${index}`, "2026-12-02T07:00:00.000Z");
        return writeDigest(store, each);
      }),
    );
    const digestKeys = (await store.list(LINEAGE_DIGESTS_PREFIX)).filter((key) => key.endsWith(".json"));
    expect(digestKeys).toEqual([first!.key, ...written.flatMap((each) => (each ? [each.key] : [])).sort()]);
    const digests = await Promise.all(digestKeys.map(readDigest));
    const signedJobs = digests.flatMap((digest) => digest.jobs.map((job) => job.jobId));
    expect(signedJobs.sort()).toEqual(["vm-0", "vm-1", "vm-2", "vm-3", "vm-first"]);
    const result = await verifyDigests(store, await Promise.all(signers.map((each) => each.publicKey())));
    expect(result.issues).toEqual([]);
    expect(result.latestKey).toBe(digestKeys.at(-1));
    expect(digests.map((digest) => digest.sequence)).toEqual(digests.map((_, index) => index + 1));
  });

  it("gives up with DigestChainContended while the next place stays claimed, writing nothing", async () => {
    await putSummary("vm-a", "2026-12-02T06:00:00.000Z");
    // A signer that claimed the first place and stopped before writing its digest.
    const claim = signatureKey(`${LINEAGE_DIGESTS_PREFIX}s000000000001.json`);
    await store.putIfAbsent(claim, "c2lnbmF0dXJl", { contentType: "text/plain" });
    const error = await writeDigest(store, signer).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DigestChainContended);
    expect((error as Error).message).toContain(claim);
    expect(await store.list(LINEAGE_DIGESTS_PREFIX)).toEqual([claim]);
  });
});

describe("digests written before sequences", () => {
  it("still verify, and the next digest chains onto the latest of them", async () => {
    const { fingerprint, signing, jobOf } = await handWritten();
    const a = await putSummary("vm-a", "2026-12-02T06:00:00.000Z");
    const firstKey = await putSignedDigest({
      schemaVersion: 1,
      digestStart: "2026-12-02T06:00:00.000Z",
      digestEnd: "2026-12-02T06:30:00.000Z",
      previous: null,
      jobs: [jobOf("vm-a", a)],
      signing,
    });
    expect(firstKey).toBe(`${LINEAGE_DIGESTS_PREFIX}20261202T063000.000Z-${fingerprint.slice(0, 8)}.json`);
    const b = await putSummary("vm-b", "2026-12-02T07:00:00.000Z");
    const secondKey = await putSignedDigest({
      schemaVersion: 1,
      digestStart: "2026-12-02T06:30:00.000Z",
      digestEnd: "2026-12-02T07:30:00.000Z",
      previous: await linkTo(firstKey),
      jobs: [jobOf("vm-b", b)],
      signing,
    });
    expect((await verifyDigests(store, [await signer.publicKey()])).issues).toEqual([]);

    await putSummary("vm-c", "2026-12-02T08:00:00.000Z");
    const third = await writeDigest(store, signer, { now: at("2026-12-02T08:30:00.000Z") });
    // Numbered as the third digest of the chain, and listed after the unnumbered ones.
    expect(third).toEqual({ key: `${LINEAGE_DIGESTS_PREFIX}s000000000003.json`, jobs: 1 });
    const digest = await readDigest(third!.key);
    expect(digest.sequence).toBe(3);
    expect(digest.previous).toEqual(await linkTo(secondKey));
    expect(digest.digestStart).toBe("2026-12-02T07:30:00.000Z");
    await putSummary("vm-d", "2026-12-02T09:00:00.000Z");
    const fourth = await writeDigest(store, signer, { now: at("2026-12-02T09:30:00.000Z") });
    expect(fourth?.key).toBe(`${LINEAGE_DIGESTS_PREFIX}s000000000004.json`);

    const result = await verifyDigests(store, [await signer.publicKey()]);
    expect(result.issues).toEqual([]);
    expect(result.digests).toBe(4);
    expect(result.latestKey).toBe(fourth?.key);
    expect([...result.covered.keys()]).toEqual(["vm-a", "vm-b", "vm-c", "vm-d"]);
  });
});

describe("verifyDigests", () => {
  /** Three digests, covering vm-a, vm-b and vm-c in turn. */
  let chain: [string, string, string];

  beforeEach(async () => {
    const written: string[] = [];
    for (const [index, jobId] of ["vm-a", "vm-b", "vm-c"].entries()) {
      await putSummary(jobId, `2026-12-02T0${index + 6}:00:00.000Z`);
      const digest = await writeDigest(store, signer, { now: at(`2026-12-02T0${index + 6}:30:00.000Z`) });
      written.push(digest!.key);
    }
    chain = written as [string, string, string];
  });

  const verifyWithOwnKey = async () => verifyDigests(store, [await signer.publicKey()]);

  it("passes an untouched chain", async () => {
    const result = await verifyWithOwnKey();
    expect(result.issues).toEqual([]);
    expect(result.digests).toBe(3);
    expect(result.latestEnd).toBe("2026-12-02T08:30:00.000Z");
    expect(result.covered.get("vm-b")?.digestKey).toBe(chain[1]);
  });

  it("names a digest whose body was edited, and the digest that chains to it", async () => {
    const body = (await store.getBytes(chain[1])).toString("utf8");
    const edited = body.replace(/"summarySha256": "[0-9a-f]/, '"summarySha256": "x');
    expect(edited).not.toBe(body);
    await store.put(chain[1], edited, { contentType: "application/json" });
    const result = await verifyWithOwnKey();
    expect(problems(result)).toEqual([
      ["digest-signature-invalid", chain[1]],
      ["digest-chain-broken", chain[2]],
    ]);
    expect(result.issues[0]?.detail).toBe(`signature does not verify with key ${await signer.fingerprint()}`);
    expect(result.issues[1]?.detail).toBe(
      `previous digest ${chain[1]} has sha256 ${sha256Hex(Buffer.from(edited))}, this digest names ${sha256Hex(Buffer.from(body))}`,
    );
    expect(result.covered.has("vm-b")).toBe(false);
  });

  it("names a digest replaced by one signed with another key", async () => {
    const intruder = await LocalSigner.loadOrCreate(join(dir, "other-keys", "intruder.pem"));
    const forged = await readDigest(chain[1]);
    forged.jobs[0]!.summarySha256 = "0".repeat(64);
    forged.signing = {
      algorithm: "ECDSA_SHA_256",
      keyId: intruder.keyId,
      keyFingerprint: await intruder.fingerprint(),
    };
    const body = Buffer.from(`${JSON.stringify(forged, null, 2)}\n`);
    await store.put(chain[1], body, { contentType: "application/json" });
    await store.put(signatureKey(chain[1]), Buffer.from(await intruder.sign(body)).toString("base64"), {
      contentType: "text/plain",
    });
    const result = await verifyWithOwnKey();
    expect(problems(result)).toEqual([
      ["digest-untrusted-key", chain[1]],
      ["digest-chain-broken", chain[2]],
    ]);
    expect(result.issues[0]?.detail).toContain(await intruder.fingerprint());
  });

  it("accepts digests signed by each of several trusted keys, and names the one signed by a key not trusted", async () => {
    const rotated = await LocalSigner.loadOrCreate(join(dir, "keys", "rotated.pem"));
    await putSummary("vm-d", "2026-12-02T09:00:00.000Z");
    const fourth = await writeDigest(store, rotated, { now: at("2026-12-02T09:30:00.000Z") });
    const both = await verifyDigests(store, [await signer.publicKey(), await rotated.publicKey()]);
    expect(both.issues).toEqual([]);
    expect(both.covered.get("vm-d")?.digestKey).toBe(fourth!.key);
    expect(problems(await verifyWithOwnKey())).toEqual([["digest-untrusted-key", fourth!.key]]);
  });

  it("names the digest after one deleted from the middle of the chain", async () => {
    await store.delete(chain[1]);
    await store.delete(signatureKey(chain[1]));
    const result = await verifyWithOwnKey();
    expect(result.digests).toBe(2);
    expect(problems(result)).toEqual([["digest-chain-broken", chain[2]]]);
    expect(result.issues[0]?.detail).toBe(
      `names previous digest ${chain[1]}, but the digest before it is ${chain[0]}`,
    );
    expect(result.covered.has("vm-b")).toBe(false);
  });

  it("names digests whose bodies (and signatures) were swapped", async () => {
    const [first, second] = await Promise.all(
      chain.slice(0, 2).map(async (key) => ({
        body: await store.getBytes(key),
        sig: await store.getBytes(signatureKey(key)),
      })),
    );
    for (const [key, { body, sig }] of [
      [chain[0], second!],
      [chain[1], first!],
    ] as const) {
      await store.put(key, body, { contentType: "application/json" });
      await store.put(signatureKey(key), sig, { contentType: "text/plain" });
    }
    const result = await verifyWithOwnKey();
    // Each signature still verifies: only the chain shows the reordering.
    expect(problems(result)).toEqual([
      ["digest-chain-broken", chain[0]],
      ["digest-chain-broken", chain[1]],
      ["digest-chain-broken", chain[2]],
    ]);
    expect(result.issues[0]?.detail).toBe(`its sequence 2 puts it under ${chain[1]}`);
  });

  it("names a digest numbered other than one after the digest before it", async () => {
    const renumbered = { ...(await readDigest(chain[2])), sequence: 4 };
    await store.delete(chain[2]);
    await store.delete(signatureKey(chain[2]));
    const key = await putSignedDigest(renumbered);
    const result = await verifyWithOwnKey();
    expect(problems(result)).toEqual([["digest-chain-broken", key]]);
    expect(result.issues[0]?.detail).toBe(`previous digest ${chain[1]} is sequence 2, this digest is 4`);
  });

  it("names a digest whose .sig is missing", async () => {
    await store.delete(signatureKey(chain[1]));
    const result = await verifyWithOwnKey();
    expect(problems(result)).toEqual([
      ["digest-unsigned", chain[1]],
      ["digest-chain-broken", chain[2]],
    ]);
    expect(result.issues[0]?.detail).toBe(`there is no ${signatureKey(chain[1])}`);
    expect(result.latestEnd).toBe("2026-12-02T08:30:00.000Z");
  });

  it("names a digest that is not JSON", async () => {
    await store.put(chain[1], "{ not json", { contentType: "application/json" });
    const result = await verifyWithOwnKey();
    expect(problems(result)).toEqual([
      ["digest-unreadable", chain[1]],
      ["digest-chain-broken", chain[2]],
    ]);
    expect(result.issues[0]?.detail).toBe("the digest is not JSON");
  });
});

describe("LocalSigner", () => {
  it("creates a key file with mode 0600 in a directory with mode 0700, and nothing else", async () => {
    const keyDir = join(dir, "fresh", "voxtrail");
    const path = join(keyDir, "lineage-signing-key.pem");
    const created = await LocalSigner.loadOrCreate(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(keyDir)).mode & 0o777).toBe(0o700);
    expect(await readdir(keyDir)).toEqual(["lineage-signing-key.pem"]);
    expect(await readFile(path, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(created.keyId).toBe(`local:${await created.fingerprint()}`);
    expect(fingerprintOf(await created.publicKey())).toBe(await created.fingerprint());
  });

  it("reloads the same key", async () => {
    const path = join(dir, "keys", "signing-key.pem");
    const reloaded = await LocalSigner.loadOrCreate(path);
    expect(await reloaded.fingerprint()).toBe(await signer.fingerprint());
    const message = Buffer.from("lineage");
    expect(verifySignature(await signer.publicKey(), message, await reloaded.sign(message))).toBe(true);
    expect(
      verifySignature(await signer.publicKey(), Buffer.from("lineagE"), await reloaded.sign(message)),
    ).toBe(false);
  });

  it("refuses a key file that is not a P-256 private key, without quoting it", async () => {
    const pkcs8 = { format: "pem", type: "pkcs8" } as const;
    const files = {
      rsa: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export(pkcs8),
      ed25519: generateKeyPairSync("ed25519").privateKey.export(pkcs8),
      p384: generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey.export(pkcs8),
      p256Public: generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({
        format: "pem",
        type: "spki",
      }),
      garbage: "not a key\n",
    };
    await mkdir(join(dir, "bad-keys"));
    for (const [name, pem] of Object.entries(files)) {
      const path = join(dir, "bad-keys", `${name}.pem`);
      await writeFile(path, pem);
      const error = await LocalSigner.loadOrCreate(path).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, name).toBeInstanceOf(SigningKeyInvalid);
      const message = (error as Error).message;
      expect(message).toContain(path);
      for (const line of pem.toString().split("\n").slice(1, -2)) expect(message).not.toContain(line);
    }
  });

  it("gives every one of concurrent first loads the same key", async () => {
    const path = join(dir, "race", "lineage-signing-key.pem");
    const signers = await Promise.all(Array.from({ length: 8 }, () => LocalSigner.loadOrCreate(path)));
    const fingerprints = new Set(await Promise.all(signers.map((each) => each.fingerprint())));
    expect(fingerprints.size).toBe(1);
    expect(await (await LocalSigner.loadOrCreate(path)).fingerprint()).toBe([...fingerprints][0]);
    expect(await readdir(join(dir, "race"))).toEqual(["lineage-signing-key.pem"]);
  });
});

describe("defaultSigningKeyPath", () => {
  it("is $VOXTRAIL_SIGNING_KEY, else under $XDG_CONFIG_HOME, else under ~/.config", () => {
    expect(defaultSigningKeyPath({ VOXTRAIL_SIGNING_KEY: "/keys/k.pem", XDG_CONFIG_HOME: "/xdg" })).toBe(
      "/keys/k.pem",
    );
    expect(defaultSigningKeyPath({ XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/voxtrail/lineage-signing-key.pem");
    const home = join(homedir(), ".config", "voxtrail", "lineage-signing-key.pem");
    expect(defaultSigningKeyPath({ XDG_CONFIG_HOME: "relative" })).toBe(home);
    expect(defaultSigningKeyPath({})).toBe(home);
  });
});

describe("repairForkedChain", () => {
  /** Three digests written before sequences: `first`, then two that both chain onto it (a fork). */
  async function forkedChain(): Promise<{ first: string; left: string; right: string }> {
    const { signing, jobOf } = await handWritten();
    const a = await putSummary("vm-a", "2026-12-02T06:00:00.000Z");
    const first = await putSignedDigest({
      schemaVersion: 1,
      digestStart: "2026-12-02T06:00:00.000Z",
      digestEnd: "2026-12-02T06:30:00.000Z",
      previous: null,
      jobs: [jobOf("vm-a", a)],
      signing,
    });
    const [b, c] = [
      await putSummary("vm-b", "2026-12-02T07:00:00.000Z"),
      await putSummary("vm-c", "2026-12-02T07:00:00.000Z"),
    ];
    // Two runs that ended together, each chaining onto the latest digest it saw.
    const fork = {
      schemaVersion: 1,
      digestStart: "2026-12-02T06:30:00.000Z",
      previous: await linkTo(first),
      signing,
    } as const;
    const left = await putSignedDigest({
      ...fork,
      digestEnd: "2026-12-02T07:30:00.000Z",
      jobs: [jobOf("vm-b", b)],
    });
    const right = await putSignedDigest({
      ...fork,
      digestEnd: "2026-12-02T07:31:00.000Z",
      jobs: [jobOf("vm-c", c)],
    });
    return { first, left, right };
  }

  it("re-signs from the fork: one digest onto the predecessor covers both branches' jobs and names what it replaced", async () => {
    const { first, left, right } = await forkedChain();
    expect(problems(await verifyDigests(store, [await signer.publicKey()]))).toEqual([
      ["digest-chain-broken", right],
    ]);

    const repair = await repairForkedChain(store, signer, { now: at("2026-12-02T08:00:00.000Z") });
    expect(repair).toMatchObject({
      forkedAfter: first,
      replaced: [left, right],
      digest: { key: `${LINEAGE_DIGESTS_PREFIX}s000000000002.json`, jobs: 2 },
      changedSince: [],
    });
    const after = await verifyDigests(store, [await signer.publicKey()]);
    expect(after.issues).toEqual([]);
    expect([...after.covered.keys()].sort()).toEqual(["vm-a", "vm-b", "vm-c"]);
    expect(after.repairs).toEqual([{ key: repair?.digest.key, repairId: repair?.repairId, replaced: 2 }]);
    const written = await readDigest(repair?.digest.key as string);
    expect(written.previous).toEqual(await linkTo(first));
    expect(written.repair?.replaced.map(({ key }) => key)).toEqual([left, right]);
    // The replaced digests are kept as they were, each with its signature, byte for byte.
    for (const { key, sha256, signature } of written.repair?.replaced ?? []) {
      const kept = `${repair?.keptUnder}${key.slice(LINEAGE_DIGESTS_PREFIX.length)}`;
      expect(sha256Hex(await store.getBytes(kept))).toBe(sha256);
      expect((await store.getBytes(signatureKey(kept))).toString("utf8")).toBe(signature);
    }
    // The chain goes on from the repair's digest, and there is nothing left to repair.
    await putSummary("vm-d", "2026-12-02T09:00:00.000Z");
    expect((await writeDigest(store, signer, { now: at("2026-12-02T09:30:00.000Z") }))?.key).toBe(
      `${LINEAGE_DIGESTS_PREFIX}s000000000003.json`,
    );
    expect(await repairForkedChain(store, signer)).toBeUndefined();
    expect((await verifyDigests(store, [await signer.publicKey()])).issues).toEqual([]);
  });

  it("does not sign again a job whose summary changed since a replaced digest signed it", async () => {
    const { right } = await forkedChain();
    await putSummary("vm-c", "2026-12-02T07:00:00.000Z", "edited after it was signed");
    const repair = await repairForkedChain(store, signer);
    expect(repair).toMatchObject({ digest: { jobs: 1 }, changedSince: ["vm-c"] });
    expect(repair?.replaced).toContain(right);
    const after = await verifyDigests(store, [await signer.publicKey()]);
    expect(after.issues).toEqual([]);
    expect(after.covered.has("vm-c")).toBe(false);
  });

  it("refuses, moving nothing, what is not a fork: an edited digest, or one deleted from the middle", async () => {
    const { left, right } = await forkedChain();
    const before = await store.list(LINEAGE_DIGESTS_PREFIX);
    const bytes = await store.getBytes(left);
    await store.put(left, Buffer.concat([bytes, Buffer.from(" ")]), { contentType: "application/json" });
    await expect(repairForkedChain(store, signer)).rejects.toThrow(ChainNotRepairable);
    expect(await store.list(LINEAGE_DIGESTS_PREFIX)).toEqual(before);

    await store.put(left, bytes, { contentType: "application/json" });
    expect(problems(await verifyDigests(store, [await signer.publicKey()]))).toEqual([
      ["digest-chain-broken", right],
    ]);

    // A chain that never forked, its middle digest deleted: the next one names a digest that is gone.
    await putSummary("vm-d", "2026-12-02T09:00:00.000Z");
    const repaired = await repairForkedChain(store, signer, { now: at("2026-12-02T09:30:00.000Z") });
    await putSummary("vm-e", "2026-12-02T10:00:00.000Z");
    const last = await writeDigest(store, signer, { now: at("2026-12-02T10:30:00.000Z") });
    await store.delete(repaired?.digest.key as string);
    await store.delete(signatureKey(repaired?.digest.key as string));
    const listed = await store.list(LINEAGE_DIGESTS_PREFIX);
    await expect(repairForkedChain(store, signer)).rejects.toThrow(/not a fork/);
    expect(await store.list(LINEAGE_DIGESTS_PREFIX)).toEqual(listed);
    expect(listed).toContain(last?.key);
  });
});
