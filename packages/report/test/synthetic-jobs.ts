import { createHash } from "node:crypto";
import type { ActivityRecord, ArtifactRef, JobReport, ObjectStore, Timing } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import type { JobData } from "../src/job-data";

/** Stage durations of one synthetic job, in milliseconds. */
export interface JobShape {
  queueMs: number;
  ingestMs: number;
  transcribeMs: number;
  reasonMs: number;
  synthesizeMs: number;
  ttfbMs: number;
  finalizeMs: number;
  jobsInFlight: number;
  gapsMs?: number[];
}

const EVENT = Date.parse("2025-01-01T10:00:00.000Z");

function artifact(jobId: string, kind: ArtifactRef["kind"], file: string, bytes: number): ArtifactRef {
  return {
    kind,
    uri: `file:///store/artifacts/${jobId}/${file}`,
    key: `artifacts/${jobId}/${file}`,
    sha256: createHash("sha256").update(`${jobId}/${file}`).digest("hex"),
    bytes,
    contentType: "application/octet-stream",
  };
}

function timing(name: string, ms: number, startEvent = "handler.start", endEvent = "durable"): Timing {
  return { name, startEvent, endEvent, ms };
}

/**
 * A job as the pipeline would have recorded it, with the stage durations given: activity records
 * back to back from the execution start, and a report. Nothing here is measured; the tests know
 * every figure in advance.
 */
export function syntheticJob(index: number, shape: JobShape): JobData {
  const jobId = `job-${String(index).padStart(3, "0")}`;
  const sourceKey = keys.incomingVoicemail(`${index}.wav`);
  const source: ArtifactRef = {
    ...artifact(jobId, "source-audio", "in.wav", 64_000),
    key: sourceKey,
    uri: `file:///store/${sourceKey}`,
  };
  const normalized = artifact(jobId, "normalized-audio", "normalized.wav", 96_000);
  const transcript = artifact(jobId, "transcript", "transcript.json", 900);
  const record = artifact(jobId, "record", "record.json", 700);
  const replyText = artifact(jobId, "reply-text", "reply.txt", 120);
  const replyAudio = artifact(jobId, "reply-audio", "reply.wav", 80_000);
  const report = artifact(jobId, "report", "report.json", 3000);
  let at = EVENT + index * 60_000 + shape.queueMs;
  const executionStart = at;
  const records: ActivityRecord[] = [];
  const stage = (
    name: string,
    ms: number,
    inputs: ArtifactRef[],
    outputs: ArtifactRef[],
    provider: string,
    extra: Timing[] = [],
    measures: Partial<ActivityRecord> = {},
  ) => {
    const startedAt = new Date(at).toISOString();
    at += ms;
    records.push({
      schemaVersion: 2,
      activityId: `${jobId}-${name}`,
      jobId,
      stage: name,
      attempt: 1,
      startedAt,
      endedAt: new Date(at).toISOString(),
      outcome: "succeeded",
      compute: { kind: "local" },
      inputs,
      outputs,
      processors: [{ provider, model: `${provider}-model`, version: "1.2", boundary: { kind: "local" } }],
      timings: [...extra, timing(`${name.toLowerCase()}.duration`, ms)],
      conditions: {
        provider,
        model: `${provider}-model`,
        version: "1.2",
        payloadBytes: inputs.reduce((sum, input) => sum + input.bytes, 0),
        jobsInFlight: shape.jobsInFlight,
      },
      ...measures,
    });
  };
  stage("Ingest", shape.ingestMs, [source], [normalized], "voxtrail", [
    timing("ingest.queueDelay", shape.queueMs, "s3.eventTime", "execution.start"),
  ]);
  stage("Transcribe", shape.transcribeMs, [normalized], [transcript], "pocketsphinx");
  stage("Reason", shape.reasonMs, [transcript], [record, replyText], "local-reasoner");
  const gapsMs = shape.gapsMs ?? [2, 3, 2];
  stage(
    "Synthesize",
    shape.synthesizeMs,
    [replyText],
    [replyAudio],
    "local-sonic-endpoint",
    [
      timing("synthesize.setup", 5, "handler.start", "stream.start"),
      timing("synthesize.ttfb", shape.ttfbMs, "request.sent", "audio.firstChunk"),
      timing("synthesize.maxGap", Math.max(...gapsMs), "audio.chunk", "audio.chunk.next"),
    ],
    {
      delivery: {
        chunks: gapsMs.length + 1,
        gapsMs,
        stallThresholdMs: 250,
        stalls: gapsMs.flatMap((ms, i) => (ms > 250 ? [{ afterChunk: i + 1, ms }] : [])),
        totalMs: shape.synthesizeMs - 10,
        audioMs: 2000,
        rtf: (shape.synthesizeMs - 10) / 2000,
      },
    },
  );
  stage(
    "Finalize",
    shape.finalizeMs,
    [source, normalized, transcript, record, replyText, replyAudio],
    [report],
    "voxtrail",
  );
  const jobReport: JobReport = {
    schemaVersion: 1,
    jobId,
    outcome: "succeeded",
    source: { bucket: "voxtrail", key: source.key, bytes: source.bytes, audioMs: 3000 },
    eventTime: new Date(EVENT + index * 60_000).toISOString(),
    execution: { id: `exec-${jobId}`, startTime: new Date(executionStart).toISOString() },
    artifacts: [source, normalized, transcript, record, replyText, replyAudio],
    stages: records.slice(0, 4).map((r) => ({ stage: r.stage, timings: r.timings })),
    timings: [timing("job.endToEnd", at - (EVENT + index * 60_000), "s3.eventTime", "artifacts.durable")],
    writtenAt: new Date(at).toISOString(),
  };
  return { jobId, report: jobReport, records };
}

/** The usual shape: the given transcription time, everything else fixed. */
export function usualJob(index: number, transcribeMs: number, overrides: Partial<JobShape> = {}): JobData {
  return syntheticJob(index, {
    queueMs: 40,
    ingestMs: 30,
    transcribeMs,
    reasonMs: 20,
    synthesizeMs: 400,
    ttfbMs: 120,
    finalizeMs: 15,
    jobsInFlight: 1 + (index % 3),
    ...overrides,
  });
}

/** Writes jobs into a store the way the pipeline lays them out. */
export async function storeJobs(store: ObjectStore, jobs: JobData[]): Promise<void> {
  for (const job of jobs) {
    if (job.report)
      await store.put(keys.report(job.jobId), JSON.stringify(job.report), {
        contentType: "application/json",
      });
    for (const record of job.records) {
      await store.put(keys.lineage(job.jobId, record.stage, record.attempt), JSON.stringify(record), {
        contentType: "application/json",
      });
    }
  }
}
