import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ObjectStore, SourceRef } from "@voxtrail/core";
import type { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LineageGraph, readLineage, verify } from "../src/index";
import { type SyntheticStore, syntheticStore } from "./synthetic-jobs";

/**
 * Jobs enough that a full verify re-hashes more objects (five artifacts and a source each), and
 * lists more under `artifacts/`, than a directory store hashes on the calling thread: they go to
 * its worker threads.
 */
const JOBS = 210;

let synthetic: SyntheticStore;

beforeAll(async () => {
  synthetic = await syntheticStore("voxtrail-verify-rehash-", JOBS);
}, 120_000);

afterAll(() => synthetic.remove());

/** The same store behind a plain object: `verify` reads it as any store, one object at a time. */
function asAnyStore(store: DirectoryStore): ObjectStore {
  return {
    bucket: store.bucket,
    put: (key, body, options) => store.put(key, body, options),
    putIfAbsent: (key, body, options) => store.putIfAbsent(key, body, options),
    get: (key, version) => store.get(key, version),
    getBytes: (key, version) => store.getBytes(key, version),
    head: (key, version) => store.head(key, version),
    list: (prefix) => store.list(prefix),
    delete: (key, version) => store.delete(key, version),
    versions: (key) => store.versions(key),
    uri: (key) => store.uri(key),
  };
}

/**
 * Worker threads, one object at a time, and worker threads started on `artifacts/` while the
 * records are still being read (the graph given as a promise): three ways to one answer.
 */
const verifyBoth = async () => {
  const { store } = synthetic;
  const graph = LineageGraph.of(await readLineage(store));
  const prehashed = await verify(store, readLineage(store).then(LineageGraph.of));
  const parallel = await verify(store, graph);
  expect(prehashed).toEqual(parallel);
  return { parallel, oneByOne: await verify(asAnyStore(store), graph) };
};

describe("verify over a directory store large enough for worker threads", () => {
  it("re-hashes every artifact and finds nothing in an untouched store", async () => {
    const { parallel, oneByOne } = await verifyBoth();
    expect(parallel.issues).toEqual([]);
    expect(parallel.artifactsChecked).toBe(JOBS * 7);
    expect(parallel).toEqual(oneByOne);
  });

  it("names what was altered, deleted or added, exactly as reading the objects one by one does", async () => {
    const { store, root, jobs } = synthetic;
    const job = (n: number) => jobs[n - 1] as (typeof jobs)[number];
    await store.put(job(1).artifacts.transcript.key, '{"text":"altered"}', {
      contentType: "application/json",
    });
    await store.delete(job(2).artifacts.replyAudio.key);
    // A source's recorded version deleted for good: a later upload under its key does not stand in.
    await store.put(job(3).source.key, "a later upload", { contentType: "audio/wav" });
    await store.delete(job(3).source.key, { versionId: SourceRef.parse(job(3).source).versionId as string });
    await store.put(`${keys.artifactPrefix(job(4).jobId)}extra.txt`, "unrecorded", {
      contentType: "text/plain",
    });
    // Not a report any more: its bytes and its schema both fail.
    await store.put(keys.report(job(5).jobId), '{"altered":true}', { contentType: "application/json" });
    // Changed on disk behind the store's back: no sidecar or version knows of it.
    await writeFile(join(root, job(6).artifacts.record.key), "changed in place");

    const { parallel, oneByOne } = await verifyBoth();
    expect(parallel).toEqual(oneByOne);
    expect(parallel.issues.map((issue) => [issue.problem, issue.key])).toEqual(
      [
        ["hash-mismatch", job(1).artifacts.transcript.key],
        ["missing-artifact", job(2).artifacts.replyAudio.key],
        ["missing-artifact", job(3).source.key],
        ["artifact-without-lineage", `${keys.artifactPrefix(job(4).jobId)}extra.txt`],
        ["broken-chain", keys.report(job(5).jobId)],
        ["hash-mismatch", keys.report(job(5).jobId)],
        ["hash-mismatch", job(6).artifacts.record.key],
      ].sort(([problemA = "", a = ""], [problemB = "", b = ""]) =>
        a === b ? problemA.localeCompare(problemB) : a < b ? -1 : 1,
      ),
    );
  });
});
