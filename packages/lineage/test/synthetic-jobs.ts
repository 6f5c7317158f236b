import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ActivityRecord,
  type ArtifactKind,
  type ArtifactRef,
  artifactRefOf,
  type LineageSummary,
  LOCAL_BOUNDARY,
  type ObjectStore,
  POINTERS_ONLY,
  type Processor,
} from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { ARTIFACT_FILES, type ArtifactFile, jobIdFor, keys } from "@voxtrail/workflow";

/** What a synthetic job wrote. */
export interface SyntheticJob {
  jobId: string;
  source: ArtifactRef;
  artifacts: Record<
    "normalizedAudio" | "transcript" | "record" | "replyText" | "replyAudio" | "report",
    ArtifactRef
  >;
}

const processor = (provider: string, model: string): Processor => ({
  provider,
  model,
  version: "1",
  boundary: LOCAL_BOUNDARY,
});

/**
 * Ends `jobId` as Finalize does (packages/functions/src/lineage/lineage-summary.ts): its summary
 * of every record the store holds for it, with the sha256 of each record's bytes, then, with
 * `note`, its note for the lineage index. Resolves to the summary written.
 */
export async function writeSummaryOf(
  store: ObjectStore,
  jobId: string,
  { note = false }: { note?: boolean } = {},
): Promise<LineageSummary> {
  const records: LineageSummary["records"] = [];
  for (const key of await store.list(keys.lineagePrefix(jobId))) {
    const bytes = await store.getBytes(key);
    const record: ActivityRecord = JSON.parse(bytes.toString("utf8"));
    ActivityRecord.parse(record);
    records.push({ key, sha256: createHash("sha256").update(bytes).digest("hex"), record });
  }
  const now = new Date();
  const summary: LineageSummary = { schemaVersion: 1, jobId, writtenAt: now.toISOString(), records };
  await store.put(keys.lineageSummary(jobId), `${JSON.stringify(summary)}\n`, {
    contentType: "application/json",
  });
  if (note) {
    const key = keys.lineageIndexNote(jobId, now, randomBytes(4).toString("hex"));
    await store.put(key, `${summary.writtenAt}\n`, { contentType: "text/plain" });
  }
  return summary;
}

/**
 * Writes one voicemail job's objects and lineage the way the stage handlers do (source, five
 * artifacts, report, one activity record per stage, with policy decisions), with small synthetic
 * bodies: lineage at scale without running the engines. With `summary` (the default) it ends with
 * the job's lineage summary, as Finalize does. The source's bytes follow `index`; its name is
 * `call-<index>.wav` unless `name` gives another (several callers' uploads under one name).
 */
export async function writeSyntheticJob(
  store: ObjectStore,
  index: number,
  start = Date.UTC(2026, 0, 1),
  summary = true,
  name = `call-${String(index).padStart(6, "0")}.wav`,
): Promise<SyntheticJob> {
  const sourceKey = keys.incomingVoicemail(name);
  const stored = await store.put(sourceKey, `RIFF synthetic voicemail ${index}`, {
    contentType: "audio/wav",
  });
  const identity = { bucket: store.bucket, key: sourceKey, etag: stored.etag, versionId: stored.versionId };
  const jobId = jobIdFor(identity);
  // As Ingest records it: the exact upload, by version where the store keeps versions.
  const source: ArtifactRef = {
    ...artifactRefOf("source-audio", stored),
    bucket: store.bucket,
    ...(stored.versionId ? { versionId: stored.versionId } : {}),
  } as ArtifactRef;
  let clock = start + index * 10_000;
  const at = () => new Date(clock++).toISOString();
  const recorded: LineageSummary["records"] = [];
  const put = async (kind: ArtifactKind, file: ArtifactFile, body: string, contentType: string) =>
    artifactRefOf(kind, await store.put(keys.artifact(jobId, file), body, { contentType }));
  const record = async (
    stage: string,
    inputs: ArtifactRef[],
    outputs: () => Promise<ArtifactRef[]>,
    processors: Processor[],
    kinds: ArtifactKind[],
  ) => {
    const startedAt = at();
    const written = await outputs();
    const activity: ActivityRecord = {
      schemaVersion: 2,
      activityId: randomUUID(),
      jobId,
      stage,
      attempt: 1,
      startedAt,
      endedAt: at(),
      outcome: "succeeded",
      compute: LOCAL_BOUNDARY,
      inputs,
      outputs: written,
      processors,
      timings: [
        { name: `${stage.toLowerCase()}.duration`, startEvent: "handler.start", endEvent: "done", ms: 5 },
      ],
      policy: {
        environment: "local",
        outcome: "allowed",
        flows: processors.flatMap((p) =>
          kinds.map((kind) => ({
            kind,
            provider: p.provider,
            model: p.model,
            boundary: p.boundary,
            allowed: true,
          })),
        ),
      },
      sideChannels: POINTERS_ONLY,
    };
    await store.put(keys.lineage(jobId, stage, 1), `${JSON.stringify(activity, null, 2)}\n`, {
      contentType: "application/json",
    });
    recorded.push({ key: keys.lineage(jobId, stage, 1), record: activity });
    return written;
  };

  const [normalizedAudio] = await record(
    "Ingest",
    [source],
    async () => [await put("normalized-audio", ARTIFACT_FILES.normalizedAudio, `pcm ${index}`, "audio/wav")],
    [processor("voxtrail", "wav-normalizer")],
    ["source-audio", "normalized-audio"],
  );
  const [transcript] = await record(
    "Transcribe",
    [normalizedAudio as ArtifactRef],
    async () => [
      await put("transcript", ARTIFACT_FILES.transcript, `{"text":"call ${index}"}`, "application/json"),
    ],
    [processor("pocketsphinx", "en-us")],
    ["normalized-audio", "transcript"],
  );
  const [recordRef, replyText] = await record(
    "Reason",
    [transcript as ArtifactRef],
    async () => [
      await put("record", ARTIFACT_FILES.record, `{"intent":"billing","n":${index}}`, "application/json"),
      await put(
        "reply-text",
        ARTIFACT_FILES.replyText,
        `Thanks, caller ${index}.\n`,
        "text/plain; charset=utf-8",
      ),
    ],
    [processor("voxtrail", "local-reasoner"), processor("jsonl-records", "lookup")],
    ["transcript", "record", "reply-text"],
  );
  const [replyAudio] = await record(
    "Synthesize",
    [replyText as ArtifactRef],
    async () => [await put("reply-audio", ARTIFACT_FILES.replyAudio, `reply audio ${index}`, "audio/wav")],
    [processor("local-sonic-endpoint", "flite")],
    ["reply-text", "reply-audio"],
  );
  const artifacts = [source, normalizedAudio, transcript, recordRef, replyText, replyAudio] as ArtifactRef[];
  const [report] = await record(
    "Finalize",
    artifacts,
    async () => [
      artifactRefOf(
        "report",
        await store.put(
          keys.report(jobId),
          `${JSON.stringify({
            schemaVersion: 1,
            jobId,
            outcome: "succeeded",
            source: { bucket: store.bucket, key: sourceKey, sha256: source.sha256 },
            eventTime: new Date(start).toISOString(),
            execution: { id: `exec-${index}`, startTime: new Date(start).toISOString() },
            artifacts,
            stages: [],
            timings: [],
            writtenAt: new Date(clock).toISOString(),
          })}\n`,
          { contentType: "application/json" },
        ),
      ),
    ],
    [],
    [],
  );
  if (summary) {
    const written: LineageSummary = {
      schemaVersion: 1,
      jobId,
      writtenAt: new Date(clock).toISOString(),
      records: recorded.sort((a, b) => (a.key < b.key ? -1 : 1)),
    };
    await store.put(keys.lineageSummary(jobId), `${JSON.stringify(written)}\n`, {
      contentType: "application/json",
    });
  }
  return {
    jobId,
    source,
    artifacts: {
      normalizedAudio: normalizedAudio as ArtifactRef,
      transcript: transcript as ArtifactRef,
      record: recordRef as ArtifactRef,
      replyText: replyText as ArtifactRef,
      replyAudio: replyAudio as ArtifactRef,
      report: report as ArtifactRef,
    },
  };
}

/** A directory store in a fresh temporary directory, with the synthetic jobs written into it. */
export interface SyntheticStore {
  root: string;
  store: DirectoryStore;
  /** Jobs 1 to n, in that order. */
  jobs: SyntheticJob[];
  /** Removes the directory. */
  remove: () => Promise<void>;
}

/**
 * A fresh directory store under the OS temp directory (named from `prefix`) holding synthetic jobs
 * 1 to `jobs` (two by default), each with its lineage summary.
 *
 * @example
 * ({ root, store, jobs, remove } = await syntheticStore("voxtrail-lineage-"));
 */
export async function syntheticStore(prefix: string, jobs = 2): Promise<SyntheticStore> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const store = new DirectoryStore({ root });
  const written: SyntheticJob[] = [];
  for (let index = 1; index <= jobs; index++) written.push(await writeSyntheticJob(store, index));
  return { root, store, jobs: written, remove: () => rm(root, { recursive: true, force: true }) };
}
