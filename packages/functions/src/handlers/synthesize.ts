import { round } from "@voxtrail/core";
import { ARTIFACT_FILES, keys, STAGE_DURATION_METRICS } from "@voxtrail/workflow";
import { replyLanguage, reportLanguage } from "../call-language";
import { defineStage, type StageNeeds } from "../kernel/stage-definition";
import { requireRedactedBeforeSend } from "../redaction/stage-redaction";
import { SynthesizeInput, type SynthesizeResult } from "../state";
import { storeSynthesis } from "../synthesis-artifact";

/**
 * Synthesize: speaks `reply.txt` through the configured synthesizer (Sonic on SageMaker, or the
 * local Sonic-compatible endpoint) and writes `reply.wav` (spooled to local disk as the audio
 * streams, then streamed into the store: memory stays flat), with time to first audio, the largest
 * gap between chunks, and the real-time factor. The activity record also keeps every gap between
 * chunks, the stalls, and the number of synthesis streams open in this process when this one began.
 */
export const synthesizeStage = defineStage<
  StageNeeds<"synthesizer" | "language" | "replyFormat" | "redaction">
>()({
  name: "Synthesize",
  follows: ["Reason"],
  input: SynthesizeInput,
  // With redaction on, Reason wrote the reply text redacted (docs/redaction.md).
  flows: (deps) => [
    {
      processor: deps.synthesizer.processor,
      kinds: ["reply-text", "reply-audio"],
      ...(deps.redaction ? { redacted: ["reply-text" as const] } : {}),
    },
  ],
  open: (job) => ({ jobId: job.jobId, inputs: [job.reason.replyText], carry: undefined }),
  run: async (job, { deps, activity, clock, signal }): Promise<SynthesizeResult> => {
    Object.assign(activity, reportLanguage(job));
    const language = replyLanguage(job, deps);
    activity.processors.push(deps.synthesizer.processorFor?.(language) ?? deps.synthesizer.processor);
    const text = (await deps.store.getBytes(job.reason.replyText.key)).toString("utf8").trim();
    requireRedactedBeforeSend(activity, "reply-text", deps.synthesizer.processor.provider, text, language);
    const stream = deps.synthesizer.synthesize({
      text,
      language,
      format: deps.replyFormat,
      signal,
    });
    const { artifact: replyAudio, audioMs } = await storeSynthesis({
      store: deps.store,
      activity,
      clock,
      stream,
      format: deps.replyFormat,
      kind: "reply-audio",
      key: keys.artifact(job.jobId, ARTIFACT_FILES.replyAudio),
    });
    clock.mark("reply.durable");
    activity.measures.audioMs = round(audioMs);
    const streamTimings = stream.timings();
    const total = streamTimings.find((timing) => timing.name === "synthesize.total")?.ms ?? 0;
    activity.timings.push(
      clock.timing("synthesize.setup", "handler.start", "stream.start"),
      ...streamTimings,
      clock.timing(STAGE_DURATION_METRICS.Synthesize, "handler.start", "reply.durable"),
    );
    return {
      replyAudio,
      audioMs: round(audioMs),
      rtf: audioMs > 0 ? round(total / audioMs) : 0,
      timings: activity.timings,
    };
  },
});
