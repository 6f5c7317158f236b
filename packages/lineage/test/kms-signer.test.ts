import { createPublicKey, type KeyObject } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateKeyCommand, GetPublicKeyCommand, type KeySpec, KMSClient } from "@aws-sdk/client-kms";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterAll, describe, expect, it } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { DigestFile } from "../src/digests/digest-file";
import { fingerprintOf, SigningKeyInvalid, verifySignature } from "../src/digests/digest-signer";
import { KmsSigner, verifyDigests, writeDigest } from "../src/index";

const client = new KMSClient(motoClientConfig());

afterAll(() => {
  client.destroy();
});

async function createKey(keySpec: KeySpec = "ECC_NIST_P256"): Promise<string> {
  const { KeyMetadata } = await client.send(
    new CreateKeyCommand({ KeySpec: keySpec, KeyUsage: "SIGN_VERIFY" }),
  );
  return KeyMetadata!.Arn!;
}

/** The key's public half as anyone with `kms:GetPublicKey` gets it, to verify with offline. */
async function publicKeyOf(keyId: string): Promise<KeyObject> {
  const { PublicKey } = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
  return createPublicKey({ key: Buffer.from(PublicKey!), format: "der", type: "spki" });
}

describe("KmsSigner", () => {
  it("signs with a KMS P-256 key; the signature verifies offline with the public key", async () => {
    const keyId = await createKey();
    const signer = new KmsSigner({ keyId, client });
    const message = Buffer.from(`${JSON.stringify({ schemaVersion: 1, jobs: [] }, null, 2)}\n`);
    const signature = await signer.sign(message);
    // DER: a SEQUENCE of two INTEGERs, not the 64-byte r||s.
    expect(signature[0]).toBe(0x30);
    expect(signature.length).toBeLessThanOrEqual(72);
    const publicKey = await publicKeyOf(keyId);
    expect(verifySignature(publicKey, message, signature)).toBe(true);
    expect(verifySignature(publicKey, Buffer.from(message.toString().replace("1", "2")), signature)).toBe(
      false,
    );
    expect(await signer.fingerprint()).toBe(fingerprintOf(publicKey));
    expect(signer.keyId).toBe(keyId);
  });

  it("writes and verifies a chain of digests end to end", async () => {
    const dir = await mkdtemp(join(tmpdir(), "voxtrail-kms-digests-"));
    try {
      const store = new DirectoryStore({ root: dir });
      const keyId = await createKey();
      const signer = new KmsSigner({ keyId, client });
      for (const jobId of ["vm-a", "vm-b"]) {
        const summary = { schemaVersion: 1, jobId, writtenAt: new Date().toISOString(), records: [] };
        await store.put(keys.lineageSummary(jobId), JSON.stringify(summary), {
          contentType: "application/json",
        });
        expect((await writeDigest(store, signer))?.jobs).toBe(1);
      }
      const result = await verifyDigests(store, [await publicKeyOf(keyId)]);
      expect(result.issues).toEqual([]);
      expect(result.digests).toBe(2);
      expect([...result.covered.keys()]).toEqual(["vm-a", "vm-b"]);
      const [first] = await store.list("lineage-digests/");
      const digest = DigestFile.parse(JSON.parse((await store.getBytes(first!)).toString("utf8")));
      expect(digest.signing).toEqual({
        algorithm: "ECDSA_SHA_256",
        keyId,
        keyFingerprint: await signer.fingerprint(),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a KMS key that is not P-256", async () => {
    const signer = new KmsSigner({ keyId: await createKey("ECC_NIST_P384"), client });
    await expect(signer.fingerprint()).rejects.toBeInstanceOf(SigningKeyInvalid);
  });
});
