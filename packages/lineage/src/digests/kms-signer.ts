import { createPublicKey, type KeyObject } from "node:crypto";
import type { KMSClient } from "@aws-sdk/client-kms";
import { builtOnce } from "@voxtrail/core";
import { type DigestSigner, fingerprintOf, isP256, SigningKeyInvalid } from "./digest-signer";

/** Options of {@link KmsSigner}. */
export interface KmsSignerOptions {
  /** The KMS key: an `ECC_NIST_P256` key with usage `SIGN_VERIFY`, by ARN, id or alias. */
  keyId: string;
  /** Default: a client that takes the standard AWS configuration (region, credentials, `AWS_ENDPOINT_URL_KMS`). */
  client?: KMSClient;
}

/**
 * Signs with an AWS KMS key (`kms:Sign`; `kms:GetPublicKey` for its fingerprint): the private key
 * never leaves KMS, and anyone with the public key verifies offline with {@link verifySignature}.
 *
 * @example
 * const signer = new KmsSigner({ keyId: "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-…" });
 * await writeDigest(store, signer);
 */
export class KmsSigner implements DigestSigner {
  readonly algorithm = "ECDSA_SHA_256";
  readonly keyId: string;
  readonly #client: () => Promise<KMSClient>;
  readonly #publicKey = builtOnce(() => this.#readPublicKey());

  constructor(options: KmsSignerOptions) {
    this.keyId = options.keyId;
    const given = options.client;
    // The SDK loads on the first call: a Lambda function importing this class does not evaluate it.
    this.#client = builtOnce(async () => given ?? new (await import("@aws-sdk/client-kms")).KMSClient({}));
  }

  async fingerprint(): Promise<string> {
    return fingerprintOf(await this.publicKey());
  }

  /** One `Sign` call with `MessageType: "RAW"`: KMS hashes the message with SHA-256 itself. */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    const { SignCommand } = await import("@aws-sdk/client-kms");
    const output = await (await this.#client()).send(
      new SignCommand({
        KeyId: this.keyId,
        Message: message,
        MessageType: "RAW",
        SigningAlgorithm: this.algorithm,
      }),
    );
    if (!output.Signature) throw new Error(`KMS Sign with key ${this.keyId} returned no signature`);
    return output.Signature;
  }

  /**
   * The key's public half from `GetPublicKey` (SPKI DER), read once. A key that is not P-256
   * rejects with {@link SigningKeyInvalid}; a failed read is tried again on the next call.
   */
  publicKey(): Promise<KeyObject> {
    return this.#publicKey();
  }

  async #readPublicKey(): Promise<KeyObject> {
    const { GetPublicKeyCommand } = await import("@aws-sdk/client-kms");
    const output = await (await this.#client()).send(new GetPublicKeyCommand({ KeyId: this.keyId }));
    if (!output.PublicKey) throw new Error(`KMS GetPublicKey of key ${this.keyId} returned no key`);
    const key = createPublicKey({ key: Buffer.from(output.PublicKey), format: "der", type: "spki" });
    if (!isP256(key) || output.KeyUsage !== "SIGN_VERIFY") {
      throw new SigningKeyInvalid(
        `KMS key ${this.keyId} is a ${output.KeySpec} key for ${output.KeyUsage}; ` +
          "lineage digests are signed with an ECC_NIST_P256 key for SIGN_VERIFY",
      );
    }
    return key;
  }
}
