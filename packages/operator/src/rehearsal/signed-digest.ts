import type { KeyObject } from "node:crypto";
import { KMSClient, ListKeysCommand } from "@aws-sdk/client-kms";
import { S3Client } from "@aws-sdk/client-s3";
import type { DigestRun } from "@voxtrail/functions";
import { DigestFile, KmsSigner, verifyDigests } from "@voxtrail/lineage";
import { latestManifest } from "@voxtrail/lineage/edge-index";
import { S3Store } from "@voxtrail/storage";
import type { StagePlan } from "./stage-plan";

/**
 * The lineage signer's run, checked as an auditor would from outside the stage: every digest in
 * the bucket verifies (chain and signature) with the public half of a signing key KMS holds
 * (`GetPublicKey`; each rehearsal of a stage deploys its key anew, so earlier rehearsals' digests
 * are signed by earlier keys), and the digest the run wrote is among them, covering its jobs and
 * naming the index generation the compactor left (by its manifest's sha256).
 * `SUCCEEDED signed`, or why not.
 *
 * @example
 * await signedDigest(run, { plan, motoEndpoint }); // "SUCCEEDED signed"
 */
export async function signedDigest(
  run: DigestRun,
  { plan, motoEndpoint }: { plan: StagePlan; motoEndpoint: string },
): Promise<string> {
  if (run.digest === null) return "SUCCEEDED nothing new to sign";
  const credentials = { accessKeyId: "testing", secretAccessKey: "testing" };
  const kms = new KMSClient({ endpoint: motoEndpoint, region: plan.region, credentials });
  const store = new S3Store({
    client: new S3Client({ endpoint: motoEndpoint, region: plan.region, credentials, forcePathStyle: true }),
    bucket: plan.bucket,
  });
  const result = await verifyDigests(store, await signingKeys(kms));
  if (result.issues.length > 0) {
    const [issue] = result.issues;
    return `FAILED DigestInvalid: ${result.issues.length} issue(s), first ${issue?.problem} ${issue?.key}`;
  }
  const covering = [...result.covered.values()].filter((job) => job.digestKey === run.digest);
  if (covering.length !== run.jobs) {
    return `FAILED DigestInvalid: ${run.digest} covers ${covering.length} job(s), the signer said ${run.jobs}`;
  }
  // It signs after the index compactor ran: its digest names the generation current now.
  const latest = await latestManifest(store);
  const named = DigestFile.parse(JSON.parse((await store.getBytes(run.digest)).toString("utf8"))).index;
  if (latest && (named?.manifestKey !== latest.key || named.sha256 !== latest.sha256)) {
    return `FAILED DigestInvalid: ${run.digest} names index generation ${named?.manifestKey ?? "none"}, the latest is ${latest.key}`;
  }
  return "SUCCEEDED signed";
}

/** The public halves of every ECC_NIST_P256 signing key moto_server holds. */
async function signingKeys(kms: KMSClient): Promise<KeyObject[]> {
  const keys: KeyObject[] = [];
  let marker: string | undefined;
  do {
    const page = await kms.send(new ListKeysCommand({ Marker: marker }));
    for (const { KeyArn } of page.Keys ?? []) {
      const key = await new KmsSigner({ keyId: KeyArn as string, client: kms })
        .publicKey()
        .catch(() => undefined);
      if (key) keys.push(key);
    }
    marker = page.Truncated ? page.NextMarker : undefined;
  } while (marker);
  return keys;
}
