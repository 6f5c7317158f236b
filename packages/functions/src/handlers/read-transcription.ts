import { createHash } from "node:crypto";
import {
  artifactRefOf,
  round,
  type Timing,
  TranscriptionFailed,
  TranscriptionJobFailed,
  type TranscriptionJobStatus,
  TranscriptionTimedOut,
  unlessMissing,
} from "@voxtrail/core";
import { STAGE_DURATION_METRICS, transcribeRedactedOutputKey } from "@voxtrail/workflow";
import { putJsonArtifact } from "../artifacts";
import { transcribedLanguage } from "../call-language";
import { defineStage } from "../kernel/stage-definition";
import { transcribeDocumentKey, transcriptKey } from "../redaction/stage-redaction";
import { ReadTranscriptionInput, type TranscribeResult } from "../state";
import type { TranscriptionJobNeeds } from "./start-transcription";

/** Longest service failure reason carried into errors and records (they are short service texts). */
const FAILURE_REASON_CHARS = 300;

/**
 * Transcribe's last step when transcription is a job on a managed service: once the workflow was
 * resumed by the job's end (or stopped waiting), describes the job, reads the service's output
 * document from the job's artifacts
 * and writes `transcript.json` from it (words, times, confidences, the service as processor). Its
 * activity record covers the transcription from the start step's request to the transcript being
 * durable, names the service job and both S3 locations, and lists the output document and the
 * transcript as outputs. A job that ended `FAILED` is `TranscriptionJobFailed` with the service's
 * reason; one still running when the workflow stopped waiting is `TranscriptionTimedOut`.
 */
export const readTranscriptionStage = defineStage<TranscriptionJobNeeds>()({
  name: "Transcribe",
  follows: ["Ingest"],
  input: ReadTranscriptionInput,
  flows: (deps) => [
    {
      processor: deps.transcriptionService.processor,
      kinds: ["normalized-audio", "transcription-output", "transcript"],
    },
  ],
  open: ({ job }) => ({
    jobId: job.jobId,
    inputs: [job.normalizedAudio],
    startedAt: job.transcription.requestedAt,
    carry: undefined,
  }),
  run: async ({ job }, { deps, activity, clock, signal }): Promise<TranscribeResult> => {
    const { transcription } = job;
    const service = deps.transcriptionService;
    activity.processors.push(service.processor);
    activity.measures.audioMs = job.audioMs;
    activity.serviceJob = {
      service: service.processor.provider,
      name: transcription.jobName,
      input: transcription.mediaUri,
      output: `s3://${deps.store.bucket}/${transcription.outputKey}`,
      waits: transcription.waits.count + 1,
    };
    const described = await service.describe(transcription.jobName, { signal });
    activity.timings.push(
      {
        name: "transcribe.startStep",
        startEvent: "handler.start",
        endEvent: "transcription.requested",
        ms: transcription.startStepMs,
      },
      ...serviceTimings(described),
    );
    if (described.status === "FAILED") {
      const reason = (described.failureReason ?? "no reason given").slice(0, FAILURE_REASON_CHARS);
      throw new TranscriptionJobFailed(`transcription job ${transcription.jobName} failed: ${reason}`);
    }
    if (described.status !== "COMPLETED") {
      throw new TranscriptionTimedOut(
        `transcription job ${transcription.jobName} was still ${described.status} after ${transcription.waits.count} waits for its end`,
      );
    }
    // With redaction on, Transcribe wrote its redacted document beside the unredacted one, or alone
    // with output `redacted` (docs/redaction.md); both are recorded, one is read. A language
    // Transcribe cannot redact got no ContentRedaction: its one document is at the output key.
    const redactedKey = transcribeRedactedOutputKey(transcription.outputKey);
    const written = new Map<string, Buffer>();
    for (const key of deps.redaction ? [transcription.outputKey, redactedKey] : [transcription.outputKey]) {
      const bytes = deps.redaction
        ? await unlessMissing(deps.store.getBytes(key))
        : await deps.store.getBytes(key);
      if (bytes) written.set(key, bytes);
    }
    const documentKey =
      transcribeDocumentKey(deps.redaction, transcription.outputKey) === redactedKey &&
      written.has(redactedKey)
        ? redactedKey
        : transcription.outputKey;
    const body = written.get(documentKey) ?? (await deps.store.getBytes(documentKey));
    // The service wrote them, so they are hashed as read; otherwise the pointer every artifact has.
    for (const [key, bytes] of written)
      activity.outputs.push(
        artifactRefOf("transcription-output", {
          key,
          uri: deps.store.uri(key),
          bytes: bytes.length,
          contentType: "application/json",
          sha256: createHash("sha256").update(bytes).digest("hex"),
        }),
      );
    let document: unknown;
    try {
      document = JSON.parse(body.toString("utf8"));
    } catch {
      throw new TranscriptionFailed(`the output document of ${transcription.jobName} is not JSON`);
    }
    const language = transcribedLanguage(job, deps, described);
    if (deps.languages) activity.language = language;
    const transcript = service.transcriptOf(document, { language, audioMs: job.audioMs });
    const ref = await putJsonArtifact(
      deps.store,
      "transcript",
      transcriptKey(deps.redaction, job.jobId),
      transcript,
    );
    activity.outputs.push(ref);
    if (documentKey !== transcription.outputKey)
      activity.redactions = [
        { output: ref.key, from: job.normalizedAudio.key, by: ["amazon-transcribe"], kinds: [] },
      ];
    clock.mark("transcript.durable");
    activity.timings.push(clock.timing("transcribe.readStep", "handler.start", "transcript.durable"));
    // Measured across two invocations (the start step's, then this one), so by the wall clock.
    const now = (deps.now?.() ?? new Date()).getTime();
    activity.timings.push({
      name: STAGE_DURATION_METRICS.Transcribe,
      startEvent: "transcription.requested",
      endEvent: "transcript.durable",
      ms: round(Math.max(0, now - Date.parse(transcription.requestedAt))),
    });
    return { transcript: ref, timings: activity.timings, ...(deps.languages ? { language } : {}) };
  },
});

/**
 * The service's own account of the job, by its clock: time queued (created to started) and time
 * transcribing (started to completed), where it reports them.
 */
function serviceTimings(job: TranscriptionJobStatus): Timing[] {
  const at = (time: string | undefined) => (time === undefined ? undefined : Date.parse(time));
  const created = at(job.createdAt);
  const started = at(job.startedAt);
  const completed = at(job.completedAt);
  const span = (name: string, start: [string, number | undefined], end: [string, number | undefined]) => {
    const [startEvent, from] = start;
    const [endEvent, to] = end;
    return from === undefined || to === undefined || to < from
      ? []
      : [{ name, startEvent, endEvent, ms: round(to - from) }];
  };
  return [
    ...span("transcribe.queued", ["job.created", created], ["job.started", started]),
    ...span("transcribe.engine", ["job.started", started], ["job.completed", completed]),
  ];
}
