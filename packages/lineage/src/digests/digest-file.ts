import { createHash } from "node:crypto";
import { mapLimit, ObjectNotFound, type ObjectStore, VoxtrailError } from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import { z } from "zod";
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
  /** When the digest was written (ISO 8601); its key is built from it. */
  digestEnd: z.iso.datetime(),
  /** The digest just before this one in key order; `null` for the first. */
  previous: z
    .object({
      key: z.string(),
      /** Hex sha256 of the previous digest's bytes. */
      sha256: z.string(),
      /** The previous digest's signature, base64, as its `.sig` holds it. */
      signature: z.string(),
    })
    .nullable(),
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
  signing: z.object({
    algorithm: z.literal("ECDSA_SHA_256"),
    keyId: z.string(),
    /** Hex sha256 of the signing key's public SPKI DER. */
    keyFingerprint: z.string(),
  }),
});
export type DigestFile = z.infer<typeof DigestFile>;

/** Another writer put a digest under the same key at the same moment; nothing was written. */
export class DigestConflict extends VoxtrailError {
  readonly retryable = false;
}

/**
 * A digest's key: its `digestEnd` without `-` and `:`, then the first 8 hex of its key's
 * fingerprint, so digests list in time order.
 *
 * @example
 * digestKey("2026-12-02T07:00:00.123Z", "3f1c9a0b…"); // "lineage-digests/20261202T070000.123Z-3f1c9a0b.json"
 */
export function digestKey(digestEnd: string, fingerprint: string): string {
  return `${LINEAGE_DIGESTS_PREFIX}${digestEnd.replace(/[-:]/g, "")}-${fingerprint.slice(0, 8)}.json`;
}

/**
 * When the digest under `key` ended, read from its name ({@link digestKey}); `undefined` for a
 * name that is not a digest's.
 *
 * @example
 * digestEndOfKey("lineage-digests/20261202T070000.123Z-3f1c9a0b.json"); // 2026-12-02T07:00:00.123Z
 */
export function digestEndOfKey(key: string): Date | undefined {
  const match = /(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2}(?:\.\d+)?)Z-[0-9a-f]+\.json$/.exec(key);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  const end = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  return Number.isNaN(end.getTime()) ? undefined : end;
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

/** The digests in the store, in key (so time) order. */
export async function listDigestKeys(store: ObjectStore): Promise<string[]> {
  return (await store.list(LINEAGE_DIGESTS_PREFIX)).filter((key) => key.endsWith(".json"));
}

/** Hex sha256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Options of {@link writeDigest}. */
export interface WriteDigestOptions {
  now?: () => Date;
}

/**
 * Writes the next digest: it covers every job summary under `lineage-summaries/` that no digest in
 * the store covers as it is now (a new job, or a job rerun since: its summary, rewritten, names
 * more records), and points at the latest digest by key. A summary the store can describe by its
 * sha256 (`head`) is read only when that hash is not covered yet. Where the store lists with
 * times (S3), only summaries written since {@link DIGEST_RESCAN_MARGIN_MS} before the latest
 * digest ended are looked at, against the digests that ended since then, so an hourly run costs
 * what the last hour wrote, not every job ever. The
 * `.sig` is written before the digest, so a listed digest always has its signature. With nothing
 * new to cover it writes nothing and resolves to `undefined`. An existing digest that cannot be
 * read rejects (with `readJson`'s errors): `verifyDigests` says what is wrong with it. Run one
 * writer at a time: two at once would both chain to the same digest.
 *
 * @example
 * const written = await writeDigest(store, await LocalSigner.loadOrCreate(defaultSigningKeyPath()));
 * written?.key; // "lineage-digests/20261202T070000.123Z-3f1c9a0b.json"
 */
export async function writeDigest(
  store: ObjectStore,
  signer: DigestSigner,
  options: WriteDigestOptions = {},
): Promise<{ key: string; jobs: number } | undefined> {
  const now = options.now ?? (() => new Date());
  const digestKeys = await listDigestKeys(store);
  const latestKey = digestKeys.at(-1);
  const since = recentSince(store, latestKey);
  const summaryKeys =
    since === undefined || !store.listModified
      ? await store.list(keys.lineageSummaries)
      : (await store.listModified(keys.lineageSummaries))
          .filter((object) => object.lastModified.getTime() >= since)
          .map((object) => object.key);
  // A summary written since `since` can only be covered by a digest that ended after it was.
  const relevant =
    since === undefined
      ? digestKeys
      : digestKeys.filter((key) => key === latestKey || (digestEndOfKey(key)?.getTime() ?? since) >= since);
  const digests = await mapLimit(relevant, 16, async (key) => {
    const bytes = await store.getBytes(key);
    return { key, bytes, digest: DigestFile.parse(JSON.parse(bytes.toString("utf8"))) };
  });
  const covered = new Set(digests.flatMap(({ digest }) => digest.jobs.map((job) => job.summarySha256)));
  const summaries = summaryKeys.filter((key) => key.endsWith(".json"));
  const hashed = await mapLimit(summaries, 16, async (summaryKey) => {
    const described = await store.head(summaryKey);
    if (described?.sha256 !== undefined && covered.has(described.sha256)) return undefined;
    const body = await store.getBytes(summaryKey).catch((error: unknown) => {
      if (error instanceof ObjectNotFound) return undefined; // Deleted since it was listed.
      throw error;
    });
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
  if (jobs.length === 0) return undefined;

  const latest = digests.at(-1);
  // Strictly after the previous digest, so the new key sorts after it whatever the clock says.
  const end = new Date(Math.max(now().getTime(), latest ? Date.parse(latest.digest.digestEnd) + 1 : 0));
  const earliest = jobs.reduce((min, entry) => Math.min(min, entry.writtenAt ?? min), end.getTime());
  const fingerprint = await signer.fingerprint();
  const digest: DigestFile = {
    schemaVersion: 1,
    digestStart: latest ? latest.digest.digestEnd : new Date(earliest).toISOString(),
    digestEnd: end.toISOString(),
    previous: latest
      ? {
          key: latest.key,
          sha256: sha256Hex(latest.bytes),
          signature: (await store.getBytes(signatureKey(latest.key))).toString("utf8").trim(),
        }
      : null,
    jobs: jobs.map((entry) => entry.job),
    signing: { algorithm: signer.algorithm, keyId: signer.keyId, keyFingerprint: fingerprint },
  };
  const key = digestKey(digest.digestEnd, fingerprint);
  const body = Buffer.from(`${JSON.stringify(digest, null, 2)}\n`);
  const signature = Buffer.from(await signer.sign(body)).toString("base64");
  const sig = await store.putIfAbsent(signatureKey(key), signature, { contentType: "text/plain" });
  if (!sig) throw new DigestConflict(`a digest was written under ${key} at the same moment`);
  await store.put(key, body, { contentType: "application/json" });
  return { key, jobs: jobs.length };
}

/**
 * Where the next digest may start looking, in milliseconds since the epoch: {@link
 * DIGEST_RESCAN_MARGIN_MS} before the latest digest ended, when the store lists with times (else
 * every summary is looked at, by its hash).
 */
function recentSince(store: ObjectStore, latestKey: string | undefined): number | undefined {
  const latestEnd = latestKey ? digestEndOfKey(latestKey) : undefined;
  if (!store.listModified || !latestEnd) return undefined;
  return latestEnd.getTime() - DIGEST_RESCAN_MARGIN_MS;
}

/** The summary's time and its records' keys and hashes; `undefined` for a body that is not a summary. */
const SummaryHashes = z.object({
  writtenAt: z.iso.datetime(),
  records: z.array(z.object({ key: z.string(), sha256: z.string().optional() })),
});

function summaryOf(body: Buffer): z.infer<typeof SummaryHashes> | undefined {
  try {
    return SummaryHashes.parse(JSON.parse(body.toString("utf8")));
  } catch {
    return undefined;
  }
}
