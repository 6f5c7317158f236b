import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";
import { VoxtrailError } from "@voxtrail/core";

/**
 * What signs lineage digests: an ECDSA P-256 key held locally ({@link LocalSigner}) or in AWS KMS
 * ({@link KmsSigner}). Signatures are over the message itself (SHA-256 is part of the algorithm),
 * DER-encoded as KMS returns them.
 */
export interface DigestSigner {
  readonly algorithm: "ECDSA_SHA_256";
  /** The key's id: a KMS key ARN or id, or `local:<fingerprint>`. */
  readonly keyId: string;
  /** Hex sha256 of the public key's SPKI DER: what a digest names its key by. */
  fingerprint(): Promise<string>;
  /** The DER-encoded ECDSA signature of `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
  publicKey(): Promise<KeyObject>;
}

/** A signing key that is not an ECDSA P-256 key. The message names the key's place, never its material. */
export class SigningKeyInvalid extends VoxtrailError {
  readonly retryable = false;
}

/**
 * The fingerprint of a key: hex sha256 of its public key's SPKI DER (a private key is taken by its
 * public half).
 *
 * @example
 * fingerprintOf(await signer.publicKey()) === (await signer.fingerprint()); // true
 */
export function fingerprintOf(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return createHash("sha256")
    .update(publicKey.export({ format: "der", type: "spki" }))
    .digest("hex");
}

/**
 * Whether `signature` (DER-encoded ECDSA) is `publicKey`'s signature over `message` with SHA-256.
 * Needs no network: a KMS key is checked with the public key `GetPublicKey` gave.
 *
 * @example
 * verifySignature(await signer.publicKey(), body, await signer.sign(body)); // true
 */
export function verifySignature(publicKey: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  return verify("sha256", message, { key: publicKey, dsaEncoding: "der" }, signature);
}

/** Whether `key` is an EC key on P-256 (OpenSSL's `prime256v1`). */
export function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1";
}
