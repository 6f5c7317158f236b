import { createPublicKey, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { defaultSigningKeyPath, isP256 } from "@voxtrail/lineage/answers";
import { UsageError } from "./usage-error";

/** Where `lineage verify` takes the keys it trusts from. */
export interface TrustedKeyOptions {
  /** PEM files holding a P-256 public key (or a private key, whose public half is taken). */
  publicKeys?: string[] | undefined;
  /** The stage's KMS signing key: its public key, from KMS's GetPublicKey. */
  kmsKeyId?: string | undefined;
  /** A local store: without other keys, the local signing key's public half, if there is one. */
  local: boolean;
}

/**
 * The public keys `lineage verify` checks digest signatures with, and what they came from; none
 * when no key was named and, for a local store, this machine has no signing key (nothing signed).
 *
 * @example
 * const { keys } = await trustedKeys({ publicKeys: ["auditor/voxtrail-prod.pem"], local: false });
 */
export async function trustedKeys(
  options: TrustedKeyOptions,
): Promise<{ keys: KeyObject[]; from: string[] }> {
  const named = [...(options.publicKeys ?? [])];
  const keys = await Promise.all(named.map(publicKeyFile));
  const from = [...named];
  if (options.kmsKeyId) {
    // KMS's client loads only for a KMS key: a local question starts without it.
    const { KmsSigner } = await import("@voxtrail/lineage");
    keys.push(await new KmsSigner({ keyId: options.kmsKeyId }).publicKey());
    from.push(`kms:${options.kmsKeyId}`);
  }
  if (keys.length === 0 && options.local) {
    const local = await publicKeyFile(defaultSigningKeyPath()).catch(() => undefined);
    if (local) {
      keys.push(local);
      from.push(defaultSigningKeyPath());
    }
  }
  return { keys, from };
}

async function publicKeyFile(path: string): Promise<KeyObject> {
  let key: KeyObject;
  try {
    key = createPublicKey(await readFile(path));
  } catch {
    throw new UsageError(`--public-key ${path}: not a readable PEM key`);
  }
  if (!isP256(key)) throw new UsageError(`--public-key ${path}: not a P-256 (ECC_NIST_P256) key`);
  return key;
}
