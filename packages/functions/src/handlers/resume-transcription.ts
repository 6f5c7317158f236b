import type { Logger } from "@aws-lambda-powertools/logger";
import { ObjectNotFound, readJson } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import * as z from "zod/mini";
import type { ResumeTranscriptionInput } from "../state";
import type { TranscriptionJobNeeds } from "./start-transcription";

/** What the await step leaves for the resume step. */
const StoredWait = z.object({ taskToken: z.string().check(z.minLength(1)) });

/** How a job's state-change event was taken: the workflow resumed, or nobody was waiting. */
export type ResumeOutcome = "resumed" | "gone" | "not-waiting";

/**
 * Transcribe's resume step, run when Amazon Transcribe's "Transcribe Job State Change" event for
 * one of the stage's jobs arrives (an EventBridge rule on the event, its input transformer passing
 * `{ step: "resume", jobName, status }`): reads the task token the await step stored under the
 * job's name and sends the job's status to the waiting workflow. No token (the job is not one a
 * workflow waits for, or the await step has not stored it yet: it looks at the job after storing,
 * so it sees the end itself) is `not-waiting`; a workflow that no longer waits is `gone`. Neither
 * is an error: EventBridge would only retry it. Works on no job's data: nothing is recorded.
 *
 * @example
 * await resumeTranscription({ step: "resume", jobName, status: "COMPLETED" }, deps); // "resumed"
 */
export async function resumeTranscription(
  input: ResumeTranscriptionInput,
  deps: Pick<TranscriptionJobNeeds, "store" | "workflowCallback"> & { logger: Pick<Logger, "info"> },
): Promise<ResumeOutcome> {
  let wait: z.infer<typeof StoredWait>;
  try {
    wait = await readJson(deps.store, keys.transcriptionWait(input.jobName), StoredWait);
  } catch (error) {
    if (!(error instanceof ObjectNotFound)) throw error;
    deps.logger.info("transcription job state change: no workflow waits", {
      transcriptionJob: input.jobName,
      status: input.status,
    });
    return "not-waiting";
  }
  const outcome = await deps.workflowCallback.resume(wait.taskToken, { status: input.status });
  deps.logger.info("transcription job state change", {
    transcriptionJob: input.jobName,
    status: input.status,
    outcome,
  });
  return outcome;
}
