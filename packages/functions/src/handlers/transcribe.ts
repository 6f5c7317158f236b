import { STAGE_DURATION_METRICS } from "@voxtrail/workflow";
import { putJsonArtifact } from "../artifacts";
import { transcriptionLanguage } from "../call-language";
import { defineStage, type StageNeeds } from "../kernel/stage-definition";
import { transcriptKey, workingTranscript } from "../redaction/stage-redaction";
import { TranscribeInput, type TranscribeResult } from "../state";

/**
 * Transcribe: runs the configured transcriber on the normalised audio and writes `transcript.json`
 * (with redaction on, into the job's unredacted location: docs/redaction.md).
 */
export const transcribeStage = defineStage<
  StageNeeds<"transcriber" | "language" | "languages" | "redaction">
>()({
  name: "Transcribe",
  follows: ["Ingest"],
  input: TranscribeInput,
  flows: (deps) => [{ processor: deps.transcriber.processor, kinds: ["normalized-audio", "transcript"] }],
  open: (job) => ({ jobId: job.jobId, inputs: [job.normalizedAudio], carry: undefined }),
  run: async (job, { deps, activity, clock, signal, tmpDir }): Promise<TranscribeResult> => {
    activity.processors.push(deps.transcriber.processor);
    const language = transcriptionLanguage(job, deps);
    const audio = await deps.store.getBytes(job.normalizedAudio.key);
    activity.measures.audioMs = job.audioMs;
    const transcript = await clock.span("engine", () =>
      deps.transcriber.transcribe(audio, { language, signal, tmpDir }),
    );
    const key = transcriptKey(deps.redaction, job.jobId);
    const working = workingTranscript(transcript, deps.redaction);
    const ref = await putJsonArtifact(deps.store, "transcript", key, working.transcript);
    activity.outputs.push(ref);
    if (working.redacted)
      activity.redactions = [
        { output: ref.key, from: job.normalizedAudio.key, by: ["voxtrail-redactor"], kinds: working.kinds },
      ];
    clock.mark("transcript.durable");
    activity.timings.push(
      clock.timing("transcribe.engine", "engine.start", "engine.end"),
      clock.timing(STAGE_DURATION_METRICS.Transcribe, "handler.start", "transcript.durable"),
    );
    Object.assign(activity, languageOf(job, transcript));
    return { transcript: ref, timings: activity.timings, ...languageOf(job, transcript) };
  },
});

/** The transcript's language for the job state, where the job carries languages (else nothing, as before). */
export function languageOf(job: { language?: string | undefined }, transcript: { language: string }) {
  return job.language === undefined ? {} : { language: transcript.language };
}
