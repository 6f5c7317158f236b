import { randomUUID } from "node:crypto";
import { mapLimit, type ObjectStore, unlessMissing } from "@voxtrail/core";
import { KEY_FOLDERS } from "@voxtrail/workflow";
import { ChainNotRepairable } from "../errors";
import {
  DigestFile,
  LINEAGE_DIGESTS_PREFIX,
  listDigestKeys,
  sha256Hex,
  signatureKey,
  writeDigest,
} from "./digest-file";
import type { DigestSigner } from "./digest-signer";
import { verifyDigests } from "./verify-digests";

/** What {@link repairForkedChain} did. */
export interface ChainRepair {
  repairId: string;
  /** The digest both branches chained onto; `null` when the fork was at the chain's start. */
  forkedAfter: string | null;
  /** The digests taken out of the chain, in key order; kept under `keptUnder`. */
  replaced: string[];
  keptUnder: string;
  /** The digest written in their place, and how many jobs it covers again. */
  digest: { key: string; jobs: number };
  /** Jobs whose summary changed since a replaced digest signed it: not signed again (verify names them). */
  changedSince: string[];
}

/** One digest as stored, with its signature's text. */
interface Stored {
  key: string;
  bytes: Buffer;
  signature: string;
  digest: DigestFile;
}

/**
 * Repairs a digest chain that forked before digests had sequences (two signers chained onto one
 * predecessor; `writeDigest` now claims each place, so a new chain cannot fork): every digest after
 * the fork's predecessor is taken out of the chain, kept as it was under
 * `lineage-digest-repairs/<repairId>/`, and one new digest, chained onto the predecessor and
 * signed by `signer`, covers their jobs again and names each digest it replaced (key, sha256,
 * signature). Only a fork is repaired: every digest must verify with `signer`'s key and the first
 * broken link must name an earlier digest (or none, a fork at the start); anything else, which a
 * repair would hide, rejects with `ChainNotRepairable` before anything is moved. A job whose summary
 * changed since a replaced digest signed it is not signed again: it is listed in `changedSince`,
 * and verify names it. Resolves to `undefined` when the chain has no broken link.
 *
 * If it stops between taking the digests out and writing the new one, the replaced digests are
 * under the repair's folder, the chain ends at the predecessor, and verify names the jobs as not
 * signed: `voxtrail lineage sign --job ID` vouches for each.
 *
 * @example
 * const repair = await repairForkedChain(store, await LocalSigner.loadOrCreate(defaultSigningKeyPath()));
 * repair?.digest.key; // "lineage-digests/s000000000003.json"
 */
export async function repairForkedChain(
  store: ObjectStore,
  signer: DigestSigner,
  options: { now?: () => Date } = {},
): Promise<ChainRepair | undefined> {
  const { issues } = await verifyDigests(store, [await signer.publicKey()]);
  const other = issues.find((issue) => issue.problem !== "digest-chain-broken");
  if (other) {
    throw new ChainNotRepairable(
      `${other.key}: ${other.problem} (${other.detail}); only a chain that forked, every digest signed by this key, is repaired`,
    );
  }
  const broken = issues[0];
  if (!broken) return undefined;
  const keys = await listDigestKeys(store);
  const chain = await mapLimit(keys, 16, (key) => readStored(store, key));
  const at = keys.indexOf(broken.key);
  const previous = chain[at]?.digest.previous ?? null;
  const forkedAt = previous === null ? -1 : keys.indexOf(previous.key);
  if (at < 1 || forkedAt >= at - 1 || (previous !== null && forkedAt < 0)) {
    throw new ChainNotRepairable(
      `${broken.key}: ${broken.detail}; it does not chain onto an earlier digest than the one before it, so this is not a fork: a digest was deleted, moved or renumbered`,
    );
  }
  const replaced = chain.slice(forkedAt + 1);
  // Each job as the last replaced digest that covers it signed it.
  const signedAs = new Map<string, DigestFile["jobs"][number]>();
  for (const { digest } of replaced) for (const job of digest.jobs) signedAs.set(job.jobId, job);
  const changedSince: string[] = [];
  const unchanged: string[] = [];
  for (const { jobId, summaryKey, summarySha256 } of signedAs.values()) {
    // A summary deleted since is not signed again.
    const now = await unlessMissing(store.getBytes(summaryKey));
    (now && sha256Hex(now) === summarySha256 ? unchanged : changedSince).push(jobId);
  }

  const repairId = `${(options.now?.() ?? new Date()).toISOString().replace(/[-:]/g, "")}-${randomUUID().slice(0, 8)}`;
  const keptUnder = `${KEY_FOLDERS.lineageDigestRepairs}${repairId}/`;
  for (const entry of replaced) {
    const name = entry.key.slice(LINEAGE_DIGESTS_PREFIX.length);
    await store.put(`${keptUnder}${name}`, entry.bytes, { contentType: "application/json" });
    await store.put(`${keptUnder}${signatureKey(name)}`, entry.signature, { contentType: "text/plain" });
  }
  for (const entry of replaced) {
    await store.delete(entry.key);
    await store.delete(signatureKey(entry.key));
  }
  const written = await writeDigest(store, signer, {
    jobs: unchanged,
    repair: {
      repairId,
      replaced: replaced.map(({ key, bytes, signature }) => ({ key, sha256: sha256Hex(bytes), signature })),
    },
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    repairId,
    forkedAfter: forkedAt < 0 ? null : (keys[forkedAt] as string),
    replaced: replaced.map(({ key }) => key),
    keptUnder,
    // A repair always writes its digest (it records the repair even with no job to add).
    digest: written as { key: string; jobs: number },
    changedSince,
  };
}

async function readStored(store: ObjectStore, key: string): Promise<Stored> {
  const [bytes, signature] = await Promise.all([store.getBytes(key), store.getBytes(signatureKey(key))]);
  return {
    key,
    bytes,
    signature: signature.toString("utf8").trim(),
    digest: DigestFile.parse(JSON.parse(bytes.toString("utf8"))),
  };
}
