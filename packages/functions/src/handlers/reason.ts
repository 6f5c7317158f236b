import { EventClock, Transcript } from "@voxtrail/core";
import { ARTIFACT_FILES, keys } from "@voxtrail/workflow";
import { putArtifact, putJsonArtifact, readJsonArtifact } from "../artifacts";
import type { StageDependencies } from "../dependencies";
import { stageScope, withActivity } from "../lineage/activity";
import { enforceBoundaries } from "../lineage/boundary-check";
import type { ReasonInput, ReasonResult } from "../state";

/**
 * Reason: turns the transcript into the voicemail's structured record (intent, entities, the
 * matching business record, summary, reply) and writes `record.json` and `reply.txt`.
 */
export async function reason(deps: StageDependencies, job: ReasonInput): Promise<ReasonResult> {
  const clock = new EventClock();
  clock.mark("handler.start");
  deps.logger.appendKeys({ jobId: job.jobId });
  return withActivity(
    { ...stageScope(deps, job.jobId, "Reason"), inputs: [job.transcribe.transcript] },
    async (activity) => {
      // The lookup receives entities taken from the transcript and returns a business record.
      enforceBoundaries(deps, activity, "Reason", [
        { processor: deps.reasoner.processor, kinds: ["transcript", "record", "reply-text"] },
        { processor: deps.records.processor, kinds: ["transcript", "record"] },
      ]);
      activity.processors.push(deps.reasoner.processor);
      // A lookup that reads its records on first use reads them now: their version is its processor's.
      await deps.records.load?.();
      activity.processors.push(deps.records.processor);
      const transcript = await readJsonArtifact(deps.store, job.transcribe.transcript, Transcript);
      clock.mark("engine.start");
      const record = await deps.reasoner.reason(transcript, deps.records);
      clock.mark("engine.end");
      const recordRef = await putJsonArtifact(
        deps.store,
        "record",
        keys.artifact(job.jobId, ARTIFACT_FILES.record),
        record,
      );
      const replyText = await putArtifact(
        deps.store,
        "reply-text",
        keys.artifact(job.jobId, ARTIFACT_FILES.replyText),
        `${record.replyText}\n`,
        "text/plain; charset=utf-8",
      );
      activity.outputs.push(recordRef, replyText);
      clock.mark("record.durable");
      activity.timings.push(
        clock.timing("reason.engine", "engine.start", "engine.end"),
        clock.timing("reason.duration", "handler.start", "record.durable"),
      );
      return { record: recordRef, replyText, timings: activity.timings };
    },
  );
}
