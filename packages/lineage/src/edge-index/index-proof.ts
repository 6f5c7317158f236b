import type { KeyObject } from "node:crypto";
import { ObjectNotFound, type ObjectStore, unlessMissing } from "@voxtrail/core";
import { DigestFile, listDigestKeys, signatureKey } from "../digests/digest-file";
import { fingerprintOf, verifySignature } from "../digests/digest-signer";
import { sha256Hex } from "./index-generation";
import {
  INDEX_MANIFESTS_PREFIX,
  type IndexManifest,
  readManifest,
  type StoredManifest,
} from "./index-manifest";
import type { IndexTable } from "./index-rows";
import { LineageIndexTampered } from "./index-tampered";

export { LineageIndexTampered };

/** Why an index answers unproven: {@link IndexProof}'s `unproven`. */
export type IndexUnprovenReason =
  /** No key to check a digest with: `verify` likewise says "signatures: not checked". */
  | "no-trusted-key"
  /** With trusted keys, no digest they verify names a generation (signed before digests named one). */
  | "no-signed-generation";

/**
 * The generation an index answers from, and how far it is proven. `proven`: a digest that verifies
 * with a trusted key names this manifest, and its bytes are those signed; each file is then checked
 * against the manifest's sha256 as it is read ({@link checkIndexFile}). `unproven`: the latest
 * generation, checked against nothing (see `reason`).
 */
export type IndexProof =
  | {
      status: "proven";
      stored: StoredManifest;
      /** The digest that signed it. */
      digestKey: string;
      /** A later manifest no trusted digest names yet (not read: answers come from the signed one). */
      unsignedNewer?: string;
    }
  | { status: "unproven"; stored: StoredManifest; reason: IndexUnprovenReason };

/**
 * The generation the index may answer from: with `trustedKeys`, the one the newest digest they
 * verify names (its signature checked over its exact bytes, its manifest's bytes against the
 * sha256 it signed; the chain itself is `verify`'s to check), even when a later generation exists
 * (compacted since, or forged: not signed, so not used); without them, or when that digest names no
 * generation, the latest, unproven. Resolves to `undefined` when the store has no index. A signed
 * manifest that is gone or whose bytes differ rejects with {@link LineageIndexTampered}.
 *
 * It reads the digests from the newest back to the first that verifies (one, usually), and one
 * manifest: a few milliseconds, whatever the index's size.
 *
 * @example
 * const proof = await proveIndex(store, [await signer.publicKey()]);
 * if (proof?.status === "proven") console.log(`generation ${proof.stored.manifest.generation}, signed by ${proof.digestKey}`);
 */
export async function proveIndex(
  store: ObjectStore,
  trustedKeys: KeyObject[],
): Promise<IndexProof | undefined> {
  const latestKey = (await store.list(INDEX_MANIFESTS_PREFIX)).filter((key) => key.endsWith(".json")).at(-1);
  if (latestKey === undefined) return undefined;
  if (trustedKeys.length === 0) {
    return { status: "unproven", stored: await readManifest(store, latestKey), reason: "no-trusted-key" };
  }
  const signed = await newestTrustedDigest(store, trustedKeys);
  const named = signed?.digest.index;
  if (!signed || !named) {
    return {
      status: "unproven",
      stored: await readManifest(store, latestKey),
      reason: "no-signed-generation",
    };
  }
  let stored: StoredManifest;
  try {
    stored = await readManifest(store, named.manifestKey);
  } catch (error) {
    if (error instanceof ObjectNotFound) {
      throw new LineageIndexTampered(
        `the lineage index manifest ${named.manifestKey}, which digest ${signed.key} signed, is gone (deleted, or vacuumed after two hours with no newer generation signed; --engine records answers meanwhile)`,
      );
    }
    // Bytes that do not parse are not the bytes signed: the hash below would say so too.
    throw new LineageIndexTampered(
      `the lineage index manifest ${named.manifestKey} is not the manifest digest ${signed.key} signed (it does not parse)`,
    );
  }
  if (stored.sha256 !== named.sha256) {
    throw new LineageIndexTampered(
      `the lineage index manifest ${named.manifestKey} has sha256 ${stored.sha256}, but digest ${signed.key} signed ${named.sha256}`,
    );
  }
  return {
    status: "proven",
    stored,
    digestKey: signed.key,
    ...(latestKey > named.manifestKey ? { unsignedNewer: latestKey } : {}),
  };
}

/**
 * Checks one file of `manifest` as read, before its rows are used: its bytes' sha256 must be the one
 * the manifest records for `table` on `day`. Rejects with {@link LineageIndexTampered} naming the
 * file when it is not; resolves to `false` (unproven) when the manifest records none for it (written
 * before files were hashed), `true` when it matches.
 *
 * @example
 * checkIndexFile(proof.stored.manifest, "2026-12-01", "edges", await store.getBytes(key));
 */
export function checkIndexFile(
  manifest: IndexManifest,
  day: string,
  table: IndexTable,
  bytes: Uint8Array,
): boolean {
  const entry = manifest.days[day];
  const expected = entry?.sha256?.[table];
  if (!entry || expected === undefined) return false;
  const actual = sha256Hex(bytes);
  if (actual !== expected) {
    throw new LineageIndexTampered(
      `the lineage index file ${entry.files[table]} has sha256 ${actual}, but generation ${manifest.generation}'s manifest records ${expected}`,
    );
  }
  return true;
}

/** The newest digest whose signature verifies with one of `trustedKeys`, or `undefined` when none does. */
async function newestTrustedDigest(
  store: ObjectStore,
  trustedKeys: KeyObject[],
): Promise<{ key: string; digest: DigestFile } | undefined> {
  const trusted = new Map(trustedKeys.map((key) => [fingerprintOf(key), key]));
  const keys = await listDigestKeys(store);
  for (let index = keys.length - 1; index >= 0; index -= 1) {
    const key = keys[index] as string;
    const [bytes, signature] = await Promise.all([
      unlessMissing(store.getBytes(key)),
      unlessMissing(store.getBytes(signatureKey(key))),
    ]);
    if (!bytes || !signature) continue;
    const digest = DigestFile.safeParse(parseJson(bytes));
    if (!digest.success) continue;
    const publicKey = trusted.get(digest.data.signing.keyFingerprint);
    if (!publicKey) continue;
    if (verifySignature(publicKey, bytes, Buffer.from(signature.toString("utf8").trim(), "base64"))) {
      return { key, digest: digest.data };
    }
  }
  return undefined;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}
