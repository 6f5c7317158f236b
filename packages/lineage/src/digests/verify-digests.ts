import type { KeyObject } from "node:crypto";
import { isSchemaMismatch, mapLimit, type ObjectStore, unlessMissing } from "@voxtrail/core";
import { DigestFile, digestKey, listDigestKeys, sha256Hex, signatureKey } from "./digest-file";
import { fingerprintOf, verifySignature } from "./digest-signer";

/** What can be wrong with a lineage digest. */
export type DigestProblem =
  | "digest-signature-invalid"
  | "digest-unsigned"
  | "digest-untrusted-key"
  | "digest-chain-broken"
  | "digest-unreadable";

/** One finding: the problem, the digest's key, and a sentence saying what is wrong. */
export interface DigestIssue {
  problem: DigestProblem;
  key: string;
  detail: string;
}

/** The outcome of {@link verifyDigests}. */
export interface DigestVerification {
  /** Digests in the store. */
  digests: number;
  /** Per covered job: its summary's sha256 as last signed, and the digest that covers it so. */
  covered: Map<string, { summaryKey: string; summarySha256: string; digestKey: string; digestEnd: string }>;
  /** Every activity record a valid digest names, with its sha256 as first signed. */
  records: Map<string, { jobId: string; sha256: string; digestKey: string }>;
  /** digestEnd of the latest valid digest, if any. */
  latestEnd?: string;
  /** The key of the latest valid digest, if any. */
  latestKey?: string;
  /**
   * The chain's head: the latest valid digest, its sequence (absent for one written before
   * sequences) and the sha256 of its bytes. An auditor keeps it to compare (`expectHead`).
   */
  head?: ChainHead;
  /** The sha256 of each readable numbered digest's bytes, by its sequence. */
  sha256BySequence: Map<number, string>;
  /** Each valid digest a chain repair wrote: its key, the repair's id and how many digests it replaced. */
  repairs: ChainRepairSeen[];
  issues: DigestIssue[];
}

/** A digest written by a chain repair (`repairForkedChain`), as verify reports it. */
export interface ChainRepairSeen {
  key: string;
  repairId: string;
  replaced: number;
}

/** A digest as an auditor keeps it to compare later: its key, sequence and sha256. */
export interface ChainHead {
  key: string;
  sequence?: number;
  sha256: string;
}

/** A digest as read from the store: whatever of it could be read. */
interface ReadDigest {
  key: string;
  /** `undefined` when the body is gone since the listing. */
  bytes?: Buffer;
  /** The base64 text of its `.sig`; `undefined` when there is none. */
  signature?: string;
  digest?: DigestFile;
  /** Why `digest` is missing. */
  unreadable?: string;
}

/**
 * Checks every digest under `lineage-digests/`, in key order: that it parses, has its `.sig`, is
 * signed by one of `trustedKeys` (matched by fingerprint) and its signature verifies over its exact
 * bytes, sits under the key its `sequence` gives (a digest written before sequences: its
 * `digestEnd` and fingerprint), and names as `previous` the digest just before it (key, sha256 and
 * signature; the first names none), numbered one after it where that one is numbered, starting
 * where that one ended. The last key listed is the chain's head. A deleted, replaced or reordered
 * digest breaks the chain at the digest after it. Each issue names the digest it concerns. The
 * jobs of each valid digest (one whose signature verifies with a trusted key) are reported as
 * covered, each by the last digest that covers it (a rerun's summary is covered again), and every
 * record they name with its hash as first signed: records are written once, so a record whose
 * bytes differ was changed. Deleting the newest digests leaves a shorter valid chain: compare
 * `latestEnd` with when the last digest was due.
 *
 * @example
 * const result = await verifyDigests(store, [await signer.publicKey()]);
 * for (const issue of result.issues) console.log(issue.problem, issue.key, issue.detail);
 */
export async function verifyDigests(
  store: ObjectStore,
  trustedKeys: KeyObject[],
): Promise<DigestVerification> {
  const trusted = new Map(trustedKeys.map((key) => [fingerprintOf(key), key]));
  const read = await mapLimit(await listDigestKeys(store), 16, (key) => readDigest(store, key));
  const result: DigestVerification = {
    digests: read.length,
    covered: new Map(),
    records: new Map(),
    sha256BySequence: new Map(),
    repairs: [],
    issues: [],
  };
  read.forEach((entry, index) => {
    const found = (problem: DigestProblem, detail: string) =>
      result.issues.push({ problem, key: entry.key, detail });
    if (entry.signature === undefined) found("digest-unsigned", `there is no ${signatureKey(entry.key)}`);
    const { digest, bytes } = entry;
    if (!digest || !bytes) {
      found("digest-unreadable", `the digest ${entry.unreadable}`);
      return;
    }
    if (digest.sequence !== undefined) result.sha256BySequence.set(digest.sequence, sha256Hex(bytes));
    const chainBreak = brokenLink(entry, digest, read[index - 1]);
    if (chainBreak) found("digest-chain-broken", chainBreak);
    if (entry.signature === undefined) return;
    const { keyFingerprint, keyId } = digest.signing;
    const publicKey = trusted.get(keyFingerprint);
    if (!publicKey) {
      found(
        "digest-untrusted-key",
        `signed with key ${keyFingerprint} (${keyId}), which is not a trusted key`,
      );
    } else if (!verifySignature(publicKey, bytes, Buffer.from(entry.signature, "base64"))) {
      found("digest-signature-invalid", `signature does not verify with key ${keyFingerprint}`);
    } else {
      result.latestEnd = digest.digestEnd;
      result.latestKey = entry.key;
      result.head = {
        key: entry.key,
        ...(digest.sequence === undefined ? {} : { sequence: digest.sequence }),
        sha256: sha256Hex(bytes),
      };
      if (digest.repair) {
        const { repairId, replaced } = digest.repair;
        result.repairs.push({ key: entry.key, repairId, replaced: replaced.length });
      }
      for (const job of digest.jobs) {
        const { summaryKey, summarySha256 } = job;
        result.covered.set(job.jobId, {
          summaryKey,
          summarySha256,
          digestKey: entry.key,
          digestEnd: digest.digestEnd,
        });
        for (const { key, sha256 } of job.records) {
          if (!result.records.has(key))
            result.records.set(key, { jobId: job.jobId, sha256, digestKey: entry.key });
        }
      }
    }
  });
  return result;
}

/**
 * The last verified digest: the latest digest whose signature verifies with one of `trustedKeys`
 * ({@link verifyDigests}); `undefined` when none does. What was signed up to its `digestEnd` can be
 * checked against it instead of re-read in full: `verify`'s `since: "last-digest"` starts there.
 *
 * @example
 * const last = await lastVerifiedDigest(store, [await signer.publicKey()]);
 * last?.digestEnd; // "2026-12-02T07:00:00.123Z"
 */
export async function lastVerifiedDigest(
  store: ObjectStore,
  trustedKeys: KeyObject[],
): Promise<{ key: string; digestEnd: string } | undefined> {
  const { latestKey, latestEnd } = await verifyDigests(store, trustedKeys);
  return latestKey && latestEnd ? { key: latestKey, digestEnd: latestEnd } : undefined;
}

/** What is wrong with the digest's place in the chain, or `undefined` when nothing is. */
function brokenLink(
  entry: ReadDigest,
  digest: DigestFile,
  before: ReadDigest | undefined,
): string | undefined {
  const ownKey = digestKey(digest);
  if (entry.key !== ownKey) {
    return digest.sequence === undefined
      ? `its digestEnd ${digest.digestEnd} and key fingerprint put it under ${ownKey}`
      : `its sequence ${digest.sequence} puts it under ${ownKey}`;
  }
  const { previous } = digest;
  if (!before) {
    return previous ? `names previous digest ${previous.key}, but no digest comes before it` : undefined;
  }
  if (!previous) return `names no previous digest, but ${before.key} comes before it`;
  if (previous.key !== before.key) {
    return `names previous digest ${previous.key}, but the digest before it is ${before.key}`;
  }
  if (!before.bytes) return `previous digest ${before.key} could not be read`;
  const sha256 = sha256Hex(before.bytes);
  if (sha256 !== previous.sha256) {
    return `previous digest ${before.key} has sha256 ${sha256}, this digest names ${previous.sha256}`;
  }
  if (before.signature !== previous.signature) {
    return before.signature === undefined
      ? `previous digest ${before.key} has no signature, this digest names one`
      : `previous digest ${before.key} has another signature than the one this digest names`;
  }
  const sequence = before.digest?.sequence;
  if (sequence !== undefined && digest.sequence !== sequence + 1) {
    return `previous digest ${before.key} is sequence ${sequence}, this digest is ${digest.sequence ?? "unnumbered"}`;
  }
  if (before.digest && before.digest.digestEnd !== digest.digestStart) {
    return `previous digest ${before.key} ends at ${before.digest.digestEnd}, this digest starts at ${digest.digestStart}`;
  }
  return undefined;
}

/** The digest's bytes, parsed document and signature text, each as far as it could be read. */
async function readDigest(store: ObjectStore, key: string): Promise<ReadDigest> {
  const [bytes, signature] = await Promise.all([
    unlessMissing(store.getBytes(key)),
    unlessMissing(store.getBytes(signatureKey(key))),
  ]);
  const entry: ReadDigest = { key, ...(signature ? { signature: signature.toString("utf8").trim() } : {}) };
  if (!bytes) return { ...entry, unreadable: "is listed but has no body" };
  try {
    return { ...entry, bytes, digest: DigestFile.parse(JSON.parse(bytes.toString("utf8"))) };
  } catch (error) {
    if (error instanceof SyntaxError) return { ...entry, bytes, unreadable: "is not JSON" };
    if (isSchemaMismatch(error)) return { ...entry, bytes, unreadable: "does not match the digest schema" };
    throw error;
  }
}
