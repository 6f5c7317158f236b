import { EventClock } from "@voxtrail/core";
import { ARTIFACT_FILES, keys } from "@voxtrail/workflow";
import { putJsonArtifact } from "../artifacts";
import type { StageDependencies } from "../dependencies";
import { stageScope, withActivity } from "../lineage/activity";
import { enforceBoundaries } from "../lineage/boundary-check";
import type { JobState, TranscribeResult } from "../state";

/** Transcribe: runs the configured transcriber on the normalised audio and writes `transcript.json`. */
export async function transcribe(deps: StageDependencies, job: JobState): Promise<TranscribeResult> {
  const clock = new EventClock();
  clock.mark("handler.start");
  deps.logger.appendKeys({ jobId: job.jobId });
  return withActivity(
    { ...stageScope(deps, job.jobId, "Transcribe"), inputs: [job.normalizedAudio] },
    async (activity) => {
      enforceBoundaries(deps, activity, "Transcribe", [
        { processor: deps.transcriber.processor, kinds: ["normalized-audio", "transcript"] },
      ]);
      activity.processors.push(deps.transcriber.processor);
      const audio = await deps.store.getBytes(job.normalizedAudio.key);
      activity.measures.audioMs = job.audioMs;
      clock.mark("engine.start");
      const transcript = await deps.transcriber.transcribe(audio, { language: deps.language });
      clock.mark("engine.end");
      const ref = await putJsonArtifact(
        deps.store,
        "transcript",
        keys.artifact(job.jobId, ARTIFACT_FILES.transcript),
        transcript,
      );
      activity.outputs.push(ref);
      clock.mark("transcript.durable");
      activity.timings.push(
        clock.timing("transcribe.engine", "engine.start", "engine.end"),
        clock.timing("transcribe.duration", "handler.start", "transcript.durable"),
      );
      return { transcript: ref, timings: activity.timings };
    },
  );
}
