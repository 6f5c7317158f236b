import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  isSchemaMismatch,
  mapLimit,
  ObjectNotFound,
  type ObjectStore,
  unlessMissing,
  VoxtrailError,
} from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import * as z from "zod/mini";
import { latestManifest } from "../edge-index/index-manifest";
import { jobOfSummaryKey } from "../stored-summary";
import type { DigestSigner } from "./digest-signer";

/** Prefix of the lineage digests and their `.sig` objects. */
export const LINEAGE_DIGESTS_PREFIX = KEY_FOLDERS.lineageDigests;

/**
 * A signed digest of lineage summaries, on the model of CloudTrail's digest files: for each job
 * summary written (or rewritten, by a rerun) since the previous digest, its hash and the hashes of
 * the activity records it names; and the hash and signature of that previous digest, so deleting,
 * replacing or reordering any digest breaks the chain. Its signature (of the
 * file's exact bytes) is the sibling object `<key>.sig`.
 */
export const DigestFile = z.object({
  schemaVersion: z.literal(1),
  /** The previous digest's `digestEnd`; for the first digest, when its earliest summary was written. */
  digestStart: z.iso.datetime(),
  /** When the digest was written (ISO 8601); a digest without `sequence` has its key built from it. */
  digestEnd: z.iso.datetime(),
  /**
   * The digest's place in the chain, from 1: the previous digest's plus one, or, after a digest
   * written before digests had one, the number of digests before it plus one. Its key is built from
   * it. Absent in digests written before it was added.
   */
  sequence: z.optional(z.number().check(z.int(), z.positive())),
  /** The digest just before this one in key order; `null` for the first. */
  previous: z.nullable(
    z.object({
      key: z.string(),
      /** Hex sha256 of the previous digest's bytes. */
      sha256: z.string(),
      /** The previous digest's signature, base64, as its `.sig` holds it. */
      signature: z.string(),
    }),
  ),
  /**
   * Jobs whose summaries no earlier digest covers as they are now, with the hex sha256 of each
   * summary's bytes and of each activity record the summary names (records are written once, so
   * a record's hash holds for good whatever happens to the summary later).
   */
  jobs: z.array(
    z.object({
      jobId: z.string(),
      summaryKey: z.string(),
      summarySha256: z.string(),
      records: z.array(z.object({ key: z.string(), sha256: z.string() })),
    }),
  ),
  /**
   * Set on the digest a repair wrote (`repairForkedChain`): the digests, written before digests had
   * sequences, that two signers had chained onto one predecessor, taken out of the chain from
   * that predecessor on, each as it was (key, sha256 of its bytes, signature), and kept under
   * `lineage-digest-repairs/<repairId>/`. This digest covers their jobs again.
   */
  repair: z.optional(
    z.object({
      repairId: z.string(),
      replaced: z.array(z.object({ key: z.string(), sha256: z.string(), signature: z.string() })),
    }),
  ),
  /**
   * The lineage edge index's generation current when the digest was signed: its manifest's key,
   * generation and the hex sha256 of the manifest's bytes (which records each Parquet file's
   * sha256). What `trace`, `impact` and `boundaries` check the index against before they answer
   * from it. Absent when the store had no index, and in digests written before it was added.
   */
  index: z.optional(
    z.object({
      manifestKey: z.string(),
      generation: z.number().check(z.int(), z.nonnegative()),
      sha256: z.string(),
    }),
  ),
  signing: z.object({
    algorithm: z.literal("ECDSA_SHA_256"),
    keyId: z.string(),
    /** Hex sha256 of the signing key's public SPKI DER. */
    keyFingerprint: z.string(),
  }),
});
export type DigestFile = z.infer<typeof DigestFile>;

/**
 * Other signers kept taking the next place in the chain: {@link writeDigest} lost the claim
 * {@link DIGEST_CLAIM_ATTEMPTS} times and wrote nothing. A later run can succeed; a claim that
 * stays (a `.sig` whose digest never came) is named in the message.
 */
export class DigestChainContended extends VoxtrailError {
  readonly retryable = true;
}

/** How many times {@link writeDigest} tries to claim the next place in the chain. */
export const DIGEST_CLAIM_ATTEMPTS = 6;

/** How long a writer that lost a claim waits before reading the chain again, times the attempts so far. */
const CLAIM_RETRY_MS = 100;

/**
 * Where a digest belongs: `s` and its `sequence` in 12 digits, so digests list in chain order, after
 * every digest written before sequences. Those (no `sequence`) are under their `digestEnd` without
 * `-` and `:`, then the first 8 hex of their key's fingerprint.
 *
 * @example
 * digestKey({ sequence: 42, ...rest }); // "lineage-digests/s000000000042.json"
 * digestKey({ digestEnd: "2026-12-02T07:00:00.123Z", ...rest }); // "lineage-digests/20261202T070000.123Z-3f1c9a0b.json"
 */
export function digestKey(digest: Pick<DigestFile, "sequence" | "digestEnd" | "signing">): string {
  if (digest.sequence !== undefined) return sequenceKey(digest.sequence);
  const fingerprint = digest.signing.keyFingerprint.slice(0, 8);
  return `${LINEAGE_DIGESTS_PREFIX}${digest.digestEnd.replace(/[-:]/g, "")}-${fingerprint}.json`;
}

/** Where the digest numbered `sequence` belongs (see {@link digestKey}). */
export function sequenceKey(sequence: number): string {
  return `${LINEAGE_DIGESTS_PREFIX}s${String(sequence).padStart(12, "0")}.json`;
}

/**
 * How long before the latest digest's end a summary written is looked at again by the next
 * {@link writeDigest}, where the store's listing gives times: longer than one run of the signer
 * (a summary written after its listing began has a time after its start) and any clock skew
 * between the signer and the store.
 */
export const DIGEST_RESCAN_MARGIN_MS = 30 * 60 * 1000;

/** Where a digest's signature lives: the sibling `<key>.sig` (base64 of the DER signature). */
export function signatureKey(digestKey: string): string {
  return `${digestKey}.sig`;
}

/** The digests in the store, in key (so chain) order. */
export async function listDigestKeys(store: ObjectStore): Promise<string[]> {
  return (await store.list(LINEAGE_DIGESTS_PREFIX)).filter((key) => key.endsWith(".json"));
}

/** Hex sha256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A digest {@link writeDigest} wrote: its key, how many jobs it covers, and the index generation it names. */
export interface WrittenDigest {
  key: string;
  jobs: number;
  index?: DigestFile["index"];
}

/** Options of {@link writeDigest}. */
export interface WriteDigestOptions {
  now?: () => Date;
  /**
   * Only these jobs' summaries: the jobs the signer vouches for (a CLI run's own, or those an
   * operator names). Without it, every summary no digest covers (the cloud signer's window).
   */
  jobs?: readonly string[];
  /** What a chain repair replaced: recorded in the digest, which is written even with no job to add. */
  repair?: DigestFile["repair"];
}

/**
 * Writes the next digest: it covers every job summary under `lineage-summaries/` that no digest in
 * the store covers as it is now (a new job, or a job rerun since: its summary, rewritten, names
 * more records), and points at the latest digest by key. It names the lineage edge index's
 * generation current as it is signed (`index`: sign after indexing, so the generation holds the
 * jobs it covers); a digest is written also when no job is new but that generation is not the one
 * the latest digest names. A summary the store can describe by its
 * sha256 (`head`) is read only when that hash is not covered yet. Where the store lists with
 * times (S3), only summaries written since {@link DIGEST_RESCAN_MARGIN_MS} before the latest
 * digest ended are looked at, against the digests written since then, so an hourly run costs
 * what the last hour wrote, not every job ever. With nothing new to cover it writes nothing and
 * resolves to `undefined`. An existing digest that cannot be read rejects (with `readJson`'s
 * errors): `verifyDigests` says what is wrong with it.
 *
 * Signers may run at once (CLI runs, the cloud signer): the next digest's key comes from its
 * `sequence` ({@link digestKey}), and its `.sig`, written before the digest, is created only if
 * absent, so of the writers that read the same latest digest one claims the place. Each other
 * waits, reads the chain again and chains onto the new latest digest with the jobs still not
 * covered, up to {@link DIGEST_CLAIM_ATTEMPTS} tries in all, then rejects with
 * {@link DigestChainContended}. A listed digest always has its signature.
 *
 * @example
 * const written = await writeDigest(store, await LocalSigner.loadOrCreate(defaultSigningKeyPath()));
 * written?.key; // "lineage-digests/s000000000042.json"
 */
export async function writeDigest(
  store: ObjectStore,
  signer: DigestSigner,
  options: WriteDigestOptions = {},
): Promise<WrittenDigest | undefined> {
  const now = options.now ?? (() => new Date());
  let claimed = "";
  for (let attempt = 1; attempt <= DIGEST_CLAIM_ATTEMPTS; attempt += 1) {
    if (attempt > 1) await sleep(CLAIM_RETRY_MS * (attempt - 1));
    const next = await nextDigest(store, signer, now, options.jobs, options.repair);
    if (!next) return undefined;
    claimed = signatureKey(next.key);
    const signature = Buffer.from(await signer.sign(next.body)).toString("base64");
    if (await store.putIfAbsent(claimed, signature, { contentType: "text/plain" })) {
      await store.put(next.key, next.body, { contentType: "application/json" });
      return { key: next.key, jobs: next.jobs, ...(next.index ? { index: next.index } : {}) };
    }
  }
  throw new DigestChainContended(
    `other signers took the next lineage digest's place ${DIGEST_CLAIM_ATTEMPTS} times, last by creating ${claimed}: if it stays with no digest beside it, its signer stopped, and deleting it frees the place`,
  );
}

/** A digest read from the store. */
interface StoredDigest {
  key: string;
  bytes: Buffer;
  digest: DigestFile;
}

/** The digest {@link writeDigest} would write now, chained to the latest; `undefined` when nothing is new. */
async function nextDigest(
  store: ObjectStore,
  signer: DigestSigner,
  now: () => Date,
  only: readonly string[] | undefined,
  repair: DigestFile["repair"],
): Promise<(WrittenDigest & { body: Buffer }) | undefined> {
  const listed = await listDigests(store);
  const latestKey = listed.at(-1)?.key;
  const latest = latestKey === undefined ? undefined : await readStoredDigest(store, latestKey);
  // Where the listing gives times, only summaries written since the margin before the latest end.
  const since =
    store.listModified && latest ? Date.parse(latest.digest.digestEnd) - DIGEST_RESCAN_MARGIN_MS : undefined;
  const summaryKeys = only
    ? [...new Set(only)].map(keys.lineageSummary)
    : since === undefined || !store.listModified
      ? await store.list(keys.lineageSummaries)
      : (await store.listModified(keys.lineageSummaries))
          .filter((object) => object.lastModified.getTime() >= since)
          .map((object) => object.key);
  // A summary written since `since` can only be covered by a digest written after it.
  const earlier = listed
    .slice(0, -1)
    .filter(({ lastModified }) => since === undefined || (lastModified?.getTime() ?? since) >= since);
  const digests = [
    ...(await mapLimit(earlier, 16, ({ key }) => readStoredDigest(store, key))),
    ...(latest ? [latest] : []),
  ];
  const covered = new Set(digests.flatMap(({ digest }) => digest.jobs.map((job) => job.summarySha256)));
  const summaries = summaryKeys.filter((key) => key.endsWith(".json"));
  const hashed = await mapLimit(summaries, 16, async (summaryKey) => {
    const described = await store.head(summaryKey);
    if (described?.sha256 !== undefined && covered.has(described.sha256)) return undefined;
    // Deleted since it was listed: nothing to cover.
    const body = await unlessMissing(store.getBytes(summaryKey));
    if (!body || covered.has(sha256Hex(body))) return undefined;
    const summary = summaryOf(body);
    const job = {
      jobId: jobOfSummaryKey(summaryKey),
      summaryKey,
      summarySha256: sha256Hex(body),
      records: (summary?.records ?? []).flatMap(({ key, sha256 }) => (sha256 ? [{ key, sha256 }] : [])),
    };
    return { job, writtenAt: summary ? Date.parse(summary.writtenAt) : undefined };
  });
  const jobs = hashed.filter((entry) => entry !== undefined);
  const index = await currentGeneration(store);
  const indexChanged =
    index !== undefined &&
    (latest?.digest.index?.manifestKey !== index.manifestKey || latest.digest.index.sha256 !== index.sha256);
  if (jobs.length === 0 && !indexChanged && !repair) return undefined;

  // Strictly after the previous digest, so digestEnd grows along the chain whatever the clock says.
  const end = new Date(Math.max(now().getTime(), latest ? Date.parse(latest.digest.digestEnd) + 1 : 0));
  const earliest = jobs.reduce((min, entry) => Math.min(min, entry.writtenAt ?? min), end.getTime());
  const fingerprint = await signer.fingerprint();
  const digest: DigestFile = {
    schemaVersion: 1,
    digestStart: latest ? latest.digest.digestEnd : new Date(earliest).toISOString(),
    digestEnd: end.toISOString(),
    sequence: latest ? (latest.digest.sequence ?? listed.length) + 1 : 1,
    previous: latest
      ? {
          key: latest.key,
          sha256: sha256Hex(latest.bytes),
          signature: (await store.getBytes(signatureKey(latest.key))).toString("utf8").trim(),
        }
      : null,
    jobs: jobs.map((entry) => entry.job),
    ...(repair ? { repair } : {}),
    ...(index ? { index } : {}),
    signing: { algorithm: signer.algorithm, keyId: signer.keyId, keyFingerprint: fingerprint },
  };
  const body = Buffer.from(`${JSON.stringify(digest, null, 2)}\n`);
  return { key: digestKey(digest), body, jobs: jobs.length, ...(index ? { index } : {}) };
}

/**
 * The index generation a digest written now names: the latest manifest, by key, generation and
 * its bytes' sha256; `undefined` when the store has no index, or its latest manifest does not parse
 * (`verify` names it; the digest then names none, and readers keep to the last generation signed).
 */
async function currentGeneration(store: ObjectStore): Promise<DigestFile["index"]> {
  const latest = await latestManifest(store).catch((error: unknown) => {
    if (error instanceof SyntaxError || isSchemaMismatch(error) || error instanceof ObjectNotFound)
      return undefined;
    throw error;
  });
  return latest && { manifestKey: latest.key, generation: latest.manifest.generation, sha256: latest.sha256 };
}

/** The digests in key order, each with when it was written where the store's listing gives times. */
async function listDigests(store: ObjectStore): Promise<Array<{ key: string; lastModified?: Date }>> {
  const listing = store.listModified
    ? await store.listModified(LINEAGE_DIGESTS_PREFIX)
    : (await store.list(LINEAGE_DIGESTS_PREFIX)).map((key) => ({ key }));
  return listing.filter(({ key }) => key.endsWith(".json"));
}

async function readStoredDigest(store: ObjectStore, key: string): Promise<StoredDigest> {
  const bytes = await store.getBytes(key);
  return { key, bytes, digest: DigestFile.parse(JSON.parse(bytes.toString("utf8"))) };
}

/** The summary's time and its records' keys and hashes; `undefined` for a body that is not a summary. */
const SummaryHashes = z.object({
  writtenAt: z.iso.datetime(),
  records: z.array(z.object({ key: z.string(), sha256: z.optional(z.string()) })),
});

function summaryOf(body: Buffer): z.infer<typeof SummaryHashes> | undefined {
  try {
    return SummaryHashes.parse(JSON.parse(body.toString("utf8")));
  } catch {
    return undefined;
  }
}
