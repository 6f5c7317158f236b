import { Transcript } from "@voxtrail/core";
import { ARTIFACT_FILES, keys, STAGE_DURATION_METRICS } from "@voxtrail/workflow";
import { putArtifact, putJsonArtifact, readJsonArtifact } from "../artifacts";
import { reportLanguage } from "../call-language";
import { defineStage, type StageNeeds } from "../kernel/stage-definition";
import { recordTerms, storeRedactedReasoning } from "../redaction/stage-redaction";
import { ReasonInput, type ReasonResult } from "../state";

/**
 * Reason: turns the transcript into the voicemail's structured record (intent, entities, the
 * matching business record, summary, reply) and writes `record.json` and `reply.txt`. The facts
 * the reasoner held for review go on, by kind and reason only, to the job report.
 */
export const reasonStage = defineStage<StageNeeds<"reasoner" | "records" | "redaction">>()({
  name: "Reason",
  follows: ["Transcribe"],
  input: ReasonInput,
  // The lookup receives entities taken from the transcript and returns a business record.
  flows: (deps) => [
    { processor: deps.reasoner.processor, kinds: ["transcript", "record", "reply-text"] },
    { processor: deps.records.processor, kinds: ["transcript", "record"] },
  ],
  open: (job) => ({ jobId: job.jobId, inputs: [job.transcribe.transcript], carry: undefined }),
  run: async (job, { deps, activity, clock, signal }): Promise<ReasonResult> => {
    Object.assign(activity, reportLanguage(job));
    activity.processors.push(deps.reasoner.processor);
    // A lookup that reads its records on first use reads them now: their version is its processor's.
    await deps.records.load?.();
    activity.processors.push(deps.records.processor);
    const transcript = await readJsonArtifact(deps.store, job.transcribe.transcript, Transcript);
    const reasoned = await clock.span("engine", () =>
      deps.reasoner.reason(transcript, deps.records, { signal }),
    );
    // With redaction on, what is stored holds none of the caller's data (docs/redaction.md).
    const redacted = deps.redaction
      ? await storeRedactedReasoning({
          store: deps.store,
          activity,
          jobId: job.jobId,
          transcript,
          transcriptRef: job.transcribe.transcript,
          record: reasoned,
          terms: recordTerms(deps.records),
        })
      : undefined;
    const record = redacted?.record ?? reasoned;
    // Two objects, neither waiting on the other: written at once.
    const [recordRef, replyText] = await Promise.all([
      putJsonArtifact(deps.store, "record", keys.artifact(job.jobId, ARTIFACT_FILES.record), record),
      putArtifact(
        deps.store,
        "reply-text",
        keys.artifact(job.jobId, ARTIFACT_FILES.replyText),
        `${record.replyText}\n`,
        "text/plain; charset=utf-8",
      ),
    ]);
    activity.outputs.push(recordRef, replyText);
    redacted?.note(recordRef);
    redacted?.note(replyText);
    clock.mark("record.durable");
    activity.timings.push(
      clock.timing("reason.engine", "engine.start", "engine.end"),
      clock.timing(STAGE_DURATION_METRICS.Reason, "handler.start", "record.durable"),
    );
    const review = record.review ?? [];
    return {
      record: recordRef,
      replyText,
      timings: activity.timings,
      ...(review.length > 0 ? { review } : {}),
    };
  },
});
