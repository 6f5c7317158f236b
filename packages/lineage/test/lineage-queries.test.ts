import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ActivityRecord, ErasureRecord, readJson } from "@voxtrail/core";
import type { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  boundaries,
  erase,
  impact,
  jobIdOfArtifactName,
  LineageGraph,
  readLineage,
  type TraceNode,
  trace,
  verify,
} from "../src/index";
import { type SyntheticJob, syntheticStore, writeSyntheticJob } from "./synthetic-jobs";

let root: string;
let store: DirectoryStore;
let jobs: SyntheticJob[];

const graphOf = async () => LineageGraph.of(await readLineage(store));

let remove: () => Promise<void>;

beforeEach(async () => {
  ({ root, store, jobs, remove } = await syntheticStore("voxtrail-lineage-"));
});

afterEach(() => remove());

/** The chain of first inputs from a node down to its end. */
function chain(node: TraceNode): TraceNode[] {
  const first = node.inputs[0];
  return first ? [node, ...chain(first)] : [node];
}

describe("trace", () => {
  it("follows reply audio back to the source audio, naming each step's activity, processor and hashes", async () => {
    const job = jobs[0]!;
    const tree = trace(await graphOf(), job.artifacts.replyAudio.key);
    const steps = chain(tree);
    expect(steps.map((node) => [node.artifact.kind, node.producedBy?.stage ?? node.origin])).toEqual([
      ["reply-audio", "Synthesize"],
      ["reply-text", "Reason"],
      ["transcript", "Transcribe"],
      ["normalized-audio", "Ingest"],
      ["source-audio", "source"],
    ]);
    expect(steps.at(-1)?.artifact.sha256).toBe(job.source.sha256);
    expect(tree.producedBy).toMatchObject({
      jobId: job.jobId,
      attempt: 1,
      processors: [{ provider: "local-sonic-endpoint", boundary: { kind: "local" } }],
      policy: { environment: "local", outcome: "allowed" },
    });
  });

  it("accepts a uri or a hash for the artifact, and names an unknown one", async () => {
    const graph = await graphOf();
    const transcript = jobs[1]!.artifacts.transcript;
    expect(trace(graph, transcript.uri).artifact.key).toBe(transcript.key);
    expect(trace(graph, transcript.sha256).artifact.key).toBe(transcript.key);
    expect(() => trace(graph, "artifacts/nope/reply.wav")).toThrow(/no lineage record names/);
  });
});

describe("impact", () => {
  it("reaches every artifact derived from a source, and nothing of another job", async () => {
    const [job, other] = jobs as [SyntheticJob, SyntheticJob];
    const result = impact(await graphOf(), job.source.key);
    expect(result.jobs).toEqual([job.jobId]);
    expect(result.artifacts.map((ref) => ref.key).sort()).toEqual(
      Object.values(job.artifacts)
        .map((ref) => ref.key)
        .sort(),
    );
    expect(result.artifacts.some((ref) => ref.key.includes(other.jobId))).toBe(false);
  });
});

describe("verify", () => {
  it("passes on untouched lineage, checking every artifact and link", async () => {
    const result = await verify(store, await graphOf());
    expect(result.issues).toEqual([]);
    expect(result).toMatchObject({ ok: true, jobs: 2, artifactsChecked: 14 });
    expect(result.linksChecked).toBe(2 * (1 + 1 + 1 + 1 + 6));
  });

  it("names the artifact when one byte of any artifact is altered", async () => {
    const job = jobs[0]!;
    for (const ref of [job.source, ...Object.values(job.artifacts)]) {
      const file = join(root, ...ref.key.split("/"));
      const original = await readFile(file);
      const altered = Buffer.from(original);
      altered[0] = (altered[0] ?? 0) ^ 0x01;
      await writeFile(file, altered);
      const result = await verify(store, await graphOf());
      expect(result.ok, ref.kind).toBe(false);
      expect(result.issues, ref.kind).toEqual([
        expect.objectContaining({ problem: "hash-mismatch", key: ref.key, jobId: job.jobId }),
      ]);
      await writeFile(file, original);
    }
    expect((await verify(store, await graphOf())).ok).toBe(true);
  });

  it("names missing artifacts, artifacts without lineage, broken links and unreadable records", async () => {
    const [job, other] = jobs as [SyntheticJob, SyntheticJob];
    await store.delete(job.artifacts.record.key);
    await store.put(`artifacts/${job.jobId}/extra.bin`, "who wrote me?", {
      contentType: "application/octet-stream",
    });
    // The transcribe record now claims it read audio the ingest never wrote.
    const transcribeKey = keys.lineage(other.jobId, "Transcribe", 1);
    const transcribe = await readJson(store, transcribeKey, ActivityRecord);
    transcribe.inputs[0]!.sha256 = "0".repeat(64);
    await writeFile(join(root, ...transcribeKey.split("/")), JSON.stringify(transcribe));
    await writeFile(join(root, ...keys.lineage(other.jobId, "Reason", 2).split("/")), "{not json");

    const result = await verify(store, await graphOf());
    expect(result.ok).toBe(false);
    expect(result.issues.map(({ problem, key }) => [problem, key])).toEqual(
      [
        ["missing-artifact", job.artifacts.record.key],
        ["artifact-without-lineage", `artifacts/${job.jobId}/extra.bin`],
        ["broken-chain", other.artifacts.normalizedAudio.key],
        // The summary written when the job ended copies the record as it was.
        ["summary-mismatch", keys.lineageSummary(other.jobId)],
        ["unreadable-record", `lineage/${other.jobId}/reason-02.json`],
      ].sort((a, b) => (a[1]! < b[1]! ? -1 : a[1]! > b[1]! ? 1 : a[0]!.localeCompare(b[0]!))),
    );
  });

  it("checks one job with --job", async () => {
    const [job, other] = jobs as [SyntheticJob, SyntheticJob];
    await store.delete(other.artifacts.replyAudio.key);
    expect(
      await verify(store, LineageGraph.of(await readLineage(store, { jobId: job.jobId })), {
        jobId: job.jobId,
      }),
    ).toMatchObject({
      ok: true,
      jobs: 1,
      artifactsChecked: 7,
    });
  });
});

describe("erase", () => {
  it("deletes the source and everything derived, records hashes only, and verify reports the chain as erased", async () => {
    const [job, other] = jobs as [SyntheticJob, SyntheticJob];
    const result = await erase(store, await graphOf(), job.source.uri);
    const erasedKeys = [job.source, ...Object.values(job.artifacts)].map((ref) => ref.key).sort();
    expect(result.erased.map((artifact) => artifact.key).sort()).toEqual(erasedKeys);
    for (const key of erasedKeys) expect(await store.head(key)).toBeUndefined();
    expect(await store.head(other.artifacts.replyAudio.key)).toBeDefined();

    const record = await readJson(store, result.records[0]!, ErasureRecord);
    expect(record.erased.find((a) => a.kind === "transcript")?.sha256).toBe(job.artifacts.transcript.sha256);
    const recordText = JSON.stringify(record);
    expect(recordText).not.toContain("call 1"); // the transcript's content
    expect(recordText).not.toContain("Thanks, caller 1"); // the reply's content

    const verified = await verify(store, await graphOf());
    expect(verified.issues).toEqual([]);
    expect(verified.ok).toBe(true);
    expect(verified.erased).toEqual([
      expect.objectContaining({ jobId: job.jobId, erasureId: result.erasureId }),
    ]);
  });

  it("shows an erased object that reappears as an incomplete erasure", async () => {
    const job = jobs[0]!;
    await erase(store, await graphOf(), job.source.key);
    await store.put(job.artifacts.transcript.key, "restored from a backup", {
      contentType: "application/json",
    });
    const result = await verify(store, await graphOf());
    expect(result.issues).toEqual([
      expect.objectContaining({ problem: "erasure-incomplete", key: job.artifacts.transcript.key }),
    ]);
  });
});

describe("erase, when several callers' uploads share one name (issue 17's reproduction 2)", () => {
  /** Two callers' voicemails uploaded as x.wav, one after the other: two versions, two jobs. */
  async function twoCallersUnderOneName(): Promise<[SyntheticJob, SyntheticJob]> {
    return [
      await writeSyntheticJob(store, 101, undefined, true, "x.wav"),
      await writeSyntheticJob(store, 102, undefined, true, "x.wav"),
    ];
  }
  const versionOf = (job: SyntheticJob) => (job.source as { versionId?: string }).versionId as string;
  const holds = async (job: SyntheticJob) =>
    (await store.head(job.source.key, { versionId: versionOf(job) }))?.sha256 === job.source.sha256;

  it("by the first caller's hash erases only that caller's chain, and verify agrees", async () => {
    const [first, second] = await twoCallersUnderOneName();
    const result = await erase(store, await graphOf(), first.source.sha256);
    expect(result.jobs).toEqual([first.jobId]);
    expect(await holds(first)).toBe(false);
    expect(await holds(second)).toBe(true);
    expect((await store.getBytes(second.source.key)).toString()).toBe("RIFF synthetic voicemail 102");
    for (const ref of Object.values(first.artifacts)) expect(await store.versions(ref.key)).toEqual([]);
    for (const ref of Object.values(second.artifacts)) expect(await store.head(ref.key)).toBeDefined();
    const verified = await verify(store, await graphOf());
    expect(verified.issues).toEqual([]);
    expect(verified.erased.map((job) => job.jobId)).toEqual([first.jobId]);
  });

  it("by the shared key refuses, naming each upload's hash, and deletes nothing", async () => {
    const [first, second] = await twoCallersUnderOneName();
    const before = await store.list("");
    await expect(erase(store, await graphOf(), first.source.key)).rejects.toMatchObject({
      name: "ErasureAmbiguous",
      message: expect.stringContaining(second.source.sha256),
    });
    expect(await store.list("")).toEqual(before);
    // Once one caller is erased, the key names the other upload alone.
    await erase(store, await graphOf(), first.source.sha256);
    expect((await erase(store, await graphOf(), first.source.key)).jobs).toEqual(
      expect.arrayContaining([second.jobId]),
    );
    expect(await holds(second)).toBe(false);
  });

  it("by a hash two jobs not yet erased hold (a source or a derived artifact) refuses, naming both, and deletes nothing", async () => {
    // The same bytes uploaded under two names: two jobs whose sources and artifacts are identical,
    // as templated replies from a deterministic synthesizer are across callers.
    const a = await writeSyntheticJob(store, 7, undefined, true, "a.wav");
    const b = await writeSyntheticJob(store, 7, Date.UTC(2026, 0, 2), true, "b.wav");
    expect(a.artifacts.replyAudio.sha256).toBe(b.artifacts.replyAudio.sha256);
    const before = await store.list("");
    for (const hash of [a.source.sha256, a.artifacts.replyAudio.sha256]) {
      await expect(erase(store, await graphOf(), hash)).rejects.toMatchObject({
        name: "ErasureAmbiguous",
        message: expect.stringContaining(`${[a.jobId, b.jobId].sort().join(", ")}`),
      });
    }
    expect(await store.list("")).toEqual(before);
    // A key stays exact; then the hash names the one job left.
    expect((await erase(store, await graphOf(), a.artifacts.replyAudio.key)).jobs).toEqual([a.jobId]);
    const result = await erase(store, await graphOf(), a.artifacts.replyAudio.sha256);
    expect(result.jobs.filter((job) => !result.alreadyErased.includes(job))).toEqual([b.jobId]);
    expect((await verify(store, await graphOf())).issues).toEqual([]);
  });

  it("by one derived artifact erases the whole chain: source version, normalized audio and the rest", async () => {
    const [first, second] = await twoCallersUnderOneName();
    const result = await erase(store, await graphOf(), first.artifacts.transcript.key);
    expect(result.jobs).toEqual([first.jobId]);
    expect(result.erased.map((artifact) => artifact.kind)).toEqual(
      expect.arrayContaining(["source-audio", "normalized-audio", "transcript", "reply-audio"]),
    );
    expect(await holds(first)).toBe(false);
    expect(await holds(second)).toBe(true);
    // Asking again by the source's hash finds the chain already erased and deletes nothing new.
    const again = await erase(store, await graphOf(), first.source.sha256);
    expect(again).toMatchObject({ alreadyErased: [first.jobId], records: [] });
    expect((await verify(store, await graphOf())).issues).toEqual([]);
  });

  it("erases a side file no record names under the job's artifact prefix", async () => {
    const [first] = await twoCallersUnderOneName();
    const side = `${keys.artifactPrefix(first.jobId)}reply.wav.part`;
    await store.put(side, "half a reply", { contentType: "application/octet-stream" });
    const result = await erase(store, await graphOf(), first.source.sha256);
    expect(result.erased).toContainEqual(expect.objectContaining({ kind: "unrecorded", key: side }));
    expect(await store.versions(side)).toEqual([]);
  });

  it("the same file uploaded again after its erasure is a new job, and verify passes", async () => {
    const [first] = await twoCallersUnderOneName();
    await erase(store, await graphOf(), first.source.sha256);
    const again = await writeSyntheticJob(store, 101, undefined, true, "x.wav");
    expect(again.jobId).not.toBe(first.jobId);
    expect(again.source.sha256).toBe(first.source.sha256);
    const verified = await verify(store, await graphOf());
    expect(verified.issues).toEqual([]);
    expect(verified.erased.map((job) => job.jobId)).toEqual([first.jobId]);
  });
});

describe("boundaries", () => {
  it("counts, per kind and provider, the boundaries data entered", async () => {
    const rows = boundaries(await graphOf());
    expect(rows.find((row) => row.kind === "transcript" && row.provider === "pocketsphinx")).toMatchObject({
      boundary: { kind: "local" },
      entered: 2,
      refused: 0,
      source: "policy-decision",
    });
    const later = boundaries(await graphOf(), {
      since: new Date(Date.UTC(2026, 0, 1, 0, 0, 15)).toISOString(),
    });
    expect(later.find((row) => row.kind === "transcript" && row.provider === "pocketsphinx")?.entered).toBe(
      1,
    );
  });
});

describe("jobIdOfArtifactName", () => {
  it("finds the job of an artifact or report by key or uri, and none for a source or a hash", () => {
    const job = jobs[0]!;
    expect(jobIdOfArtifactName(job.artifacts.replyAudio.key)).toBe(job.jobId);
    expect(jobIdOfArtifactName(job.artifacts.transcript.uri)).toBe(job.jobId);
    expect(jobIdOfArtifactName(`s3://bucket/${job.artifacts.report.key}`)).toBe(job.jobId);
    expect(jobIdOfArtifactName(job.source.key)).toBeUndefined();
    expect(jobIdOfArtifactName(job.source.sha256)).toBeUndefined();
  });
});
