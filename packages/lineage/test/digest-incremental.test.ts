import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { S3Store } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { DIGEST_RESCAN_MARGIN_MS } from "../src/digests/digest-file";
import { LocalSigner, verifyDigests, writeDigest } from "../src/index";

/** The S3 commands the store sent, by name, since the last `reset`. */
class CommandCounter {
  readonly counts = new Map<string, number>();
  attach(client: S3Client): S3Client {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const name = (context as { commandName?: string }).commandName ?? "unknown";
        this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
        return next(args);
      },
      { step: "initialize", name: "countCommands" },
    );
    return client;
  }
  reset(): void {
    this.counts.clear();
  }
}

const bucket = `voxtrail-digest-incremental-${Date.now()}`;
const counter = new CommandCounter();
let store: S3Store;
let signer: LocalSigner;
let keyDir: string;

/** Writes a (record-less) lineage summary for `jobId`. */
async function putSummary(jobId: string): Promise<void> {
  const records = [{ key: `lineage/${jobId}/ingest-01.json`, sha256: "0".repeat(64), record: {} }];
  const body = JSON.stringify({ schemaVersion: 1, jobId, writtenAt: new Date().toISOString(), records });
  await store.put(keys.lineageSummary(jobId), body, { contentType: "application/json" });
}

beforeAll(async () => {
  const client = counter.attach(new S3Client(motoClientConfig()));
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  store = new S3Store({ client, bucket });
  keyDir = await mkdtemp(join(tmpdir(), "voxtrail-digest-incremental-"));
  signer = await LocalSigner.loadOrCreate(join(keyDir, "signing-key.pem"));
});

afterAll(() => rm(keyDir, { recursive: true, force: true }));

describe("writeDigest on S3: each run looks at what was written since the last one, not every job", () => {
  it("covers new and rewritten summaries, run after run, and the chain verifies", async () => {
    await putSummary("vm-a");
    await putSummary("vm-b");
    expect((await writeDigest(store, signer))?.jobs).toBe(2);
    await putSummary("vm-c");
    // vm-a rerun: its summary rewritten with more records.
    await putSummary("vm-a");
    expect((await writeDigest(store, signer))?.jobs).toBe(2);
    expect(await writeDigest(store, signer)).toBeUndefined();
    const verified = await verifyDigests(store, [await signer.publicKey()]);
    expect(verified.issues).toEqual([]);
    expect([...verified.covered.keys()].sort()).toEqual(["vm-a", "vm-b", "vm-c"]);
  });

  it("keeps one chain when signers run at once, each job signed once", async () => {
    const others = [1, 2].map((index) => LocalSigner.loadOrCreate(join(keyDir, `signer-${index}.pem`)));
    const signers = [signer, ...(await Promise.all(others))];
    const written = await Promise.all(
      signers.map(async (each, index) => {
        await putSummary(`vm-race-${index}`);
        return writeDigest(store, each);
      }),
    );
    const verified = await verifyDigests(store, await Promise.all(signers.map((each) => each.publicKey())));
    expect(verified.issues).toEqual([]);
    const signedBy = written.flatMap((each) => (each ? [each.key] : []));
    const raced = [...verified.covered].filter(([jobId]) => jobId.startsWith("vm-race-"));
    expect(raced.map(([jobId]) => jobId).sort()).toEqual(["vm-race-0", "vm-race-1", "vm-race-2"]);
    expect(raced.every(([, covered]) => signedBy.includes(covered.digestKey))).toBe(true);
    expect(written.reduce((sum, each) => sum + (each?.jobs ?? 0), 0)).toBe(3);
  });

  it("asks nothing of a summary written before the latest digest's end less the margin", async () => {
    // A digest that ended well after every summary was written: the next run finds them all older
    // than its window, and so HEADs none and reads only the latest digest.
    await putSummary("vm-d");
    const later = new Date(Date.now() + 2 * DIGEST_RESCAN_MARGIN_MS);
    expect((await writeDigest(store, signer, { now: () => later }))?.jobs).toBe(1);
    counter.reset();
    expect(await writeDigest(store, signer)).toBeUndefined();
    expect(counter.counts.get("HeadObjectCommand") ?? 0).toBe(0);
    // The latest digest (to chain to) and nothing else.
    expect(counter.counts.get("GetObjectCommand")).toBe(1);
  });
});
