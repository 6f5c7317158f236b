import type { ExecutionLiveness, JobClaim } from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { erase } from "../src/erase";
import { ErasureWaitedTooLong } from "../src/errors";
import { LineageGraph } from "../src/lineage-graph";
import { readLineage } from "../src/lineage-snapshot";
import { verify } from "../src/verify";
import { type SyntheticStore, syntheticStore } from "./synthetic-jobs";

const EXECUTION = "arn:aws:states:local:000000000000:execution:voxtrail-voicemail:4242-running";

let synthetic: SyntheticStore;
let jobId: string;

beforeEach(async () => {
  synthetic = await syntheticStore("voxtrail-erase-running-", 1);
  jobId = synthetic.jobs[0]?.jobId as string;
  const claim: JobClaim = {
    jobId,
    run: 1,
    executionId: EXECUTION,
    claimedAt: new Date().toISOString(),
    source: { bucket: synthetic.store.bucket, key: synthetic.jobs[0]?.source.key as string },
  };
  await synthetic.store.put(keys.claim(jobId, 1), JSON.stringify(claim), { contentType: "application/json" });
});

afterEach(() => synthetic.remove());

const graphNow = async () => LineageGraph.of(await readLineage(synthetic.store));
const lateKey = () => `artifacts/${jobId}/written-late.json`;

describe("an erasure that cannot be outrun", () => {
  it("waits for a running job to end, then erases what it wrote meanwhile too", async () => {
    let running = true;
    const liveness: ExecutionLiveness = { isRunning: async (id) => running && id === EXECUTION };
    const waitedFor: string[] = [];
    const erasing = erase(synthetic.store, await graphNow(), synthetic.jobs[0]?.source.key as string, {
      liveness,
      waiting: { onWait: (id) => waitedFor.push(id) },
    });
    // The run goes on while the erasure waits: it writes, then ends.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await synthetic.store.put(lateKey(), "{}", { contentType: "application/json" });
    running = false;
    const result = await erasing;

    expect(waitedFor).toEqual([jobId]);
    expect(result.jobs).toEqual([jobId]);
    expect(await synthetic.store.versions(lateKey())).toEqual([]);
    expect((await verify(synthetic.store, await graphNow())).issues).toEqual([]);
  });

  it("gives up, erasing nothing, when the job runs past the wait", async () => {
    const liveness: ExecutionLiveness = { isRunning: async () => true };
    await expect(
      erase(synthetic.store, await graphNow(), synthetic.jobs[0]?.source.key as string, {
        liveness,
        waiting: { timeoutMs: 50 },
      }),
    ).rejects.toThrow(ErasureWaitedTooLong);
    expect(await synthetic.store.list(KEY_FOLDERS.erasures)).toEqual([]);
  });

  it("names what was written after an erasure that did not wait, and erasing again takes it", async () => {
    const sourceKey = synthetic.jobs[0]?.source.key as string;
    await erase(synthetic.store, await graphNow(), sourceKey);
    await synthetic.store.put(lateKey(), "{}", { contentType: "application/json" });

    const found = await verify(synthetic.store, await graphNow());
    expect(found.issues.map((each) => `${each.problem} ${each.key}`)).toEqual([
      `erasure-incomplete ${lateKey()}`,
    ]);
    const again = await erase(synthetic.store, await graphNow(), sourceKey);
    expect(again.alreadyErased).toEqual([]);
    expect(await synthetic.store.versions(lateKey())).toEqual([]);
    expect((await verify(synthetic.store, await graphNow())).issues).toEqual([]);
  });
});
