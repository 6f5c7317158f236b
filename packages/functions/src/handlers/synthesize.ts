import { BYTES_PER_SAMPLE, writeWav } from "@voxtrail/audio";
import { EventClock, round } from "@voxtrail/core";
import { ARTIFACT_FILES, keys } from "@voxtrail/workflow";
import { putArtifact } from "../artifacts";
import type { StageDependencies } from "../dependencies";
import { stageScope, withActivity } from "../lineage/activity";
import type { SynthesizeInput, SynthesizeResult } from "../state";

/**
 * Synthesize: speaks `reply.txt` through the configured synthesizer (Sonic on SageMaker, or the
 * local Sonic-compatible endpoint) and writes `reply.wav`, with time to first audio, the largest
 * gap between chunks, and the real-time factor.
 */
export async function synthesize(deps: StageDependencies, job: SynthesizeInput): Promise<SynthesizeResult> {
  const clock = new EventClock();
  clock.mark("handler.start");
  deps.logger.appendKeys({ jobId: job.jobId });
  return withActivity(
    { ...stageScope(deps, job.jobId, "Synthesize"), inputs: [job.reason.replyText] },
    async (activity) => {
      activity.processors.push(deps.synthesizer.processor);
      const text = (await deps.store.getBytes(job.reason.replyText.key)).toString("utf8").trim();
      const stream = deps.synthesizer.synthesize({ text, language: deps.language, format: deps.replyFormat });
      const chunks: Uint8Array[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const audio = Buffer.concat(chunks);
      const replyAudio = await putArtifact(
        deps.store,
        "reply-audio",
        keys.artifact(job.jobId, ARTIFACT_FILES.replyAudio),
        writeWav(deps.replyFormat, audio),
        "audio/wav",
      );
      activity.outputs.push(replyAudio);
      clock.mark("reply.durable");
      const audioMs =
        (audio.length / BYTES_PER_SAMPLE[deps.replyFormat.encoding] / deps.replyFormat.sampleRate) * 1000;
      const streamTimings = stream.timings();
      const total = streamTimings.find((timing) => timing.name === "synthesize.total")?.ms ?? 0;
      activity.timings.push(
        ...streamTimings,
        clock.timing("synthesize.duration", "handler.start", "reply.durable"),
      );
      return {
        replyAudio,
        audioMs: round(audioMs),
        rtf: audioMs > 0 ? round(total / audioMs) : 0,
        timings: activity.timings,
      };
    },
  );
}
