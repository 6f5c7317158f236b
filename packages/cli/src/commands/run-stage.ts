import type { ObjectStore } from "@voxtrail/core";
import { collectInputFiles, contentTypeOf, type InputFile } from "@voxtrail/local";
import { executionTimeoutSeconds, VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";
import { isDone, jobLine, summaryLine } from "../job-lines";
import { ProgressLine } from "../progress";
import { runOnStage, type StageOptions } from "../stage/stage-command";
import { followStageJobs, type StageUpload } from "../stage/stage-jobs";
import { uploadToStage } from "../stage/stage-upload";
import { timeoutMsOf } from "../stage/timeout-option";
import { VOICEMAIL_JOBS } from "../stage/voicemail-jobs";
import { UsageError } from "../usage-error";

/**
 * `voxtrail run --stage NAME FILES`: uploads each voicemail to the deployed stage's bucket under
 * `incoming/voicemail/`, follows the execution EventBridge starts for it, and prints the same job
 * lines and summary as a local run. The stage is found through its SSM parameter; every client
 * uses the standard AWS configuration (region, profiles, `AWS_ENDPOINT_URL_<SERVICE>`). Resolves to
 * the exit code: 0 when every job succeeded, 1 otherwise.
 *
 * @example
 * process.exitCode = await runStageCommand(["call.wav"], { stage: "dev", json: false });
 */
export async function runStageCommand(paths: string[], options: StageOptions): Promise<number> {
  // As long as a voicemail execution may run: a full Transcribe queue and a throttling horizon.
  const timeoutMs = timeoutMsOf(options.timeout, executionTimeoutSeconds("service-job"));
  if (paths.length === 0) throw new UsageError("run --stage needs the voicemail files to upload");
  const files = await collectInputFiles(paths);
  if (files.length === 0) throw new UsageError(`no .wav files found in ${paths.join(", ")}`);
  const progress = new ProgressLine(files.length);
  return runOnStage(options, {
    what: `${files.length} voicemail(s)`,
    stateMachineArnOf: (resources) => resources.voicemailStateMachineArn,
    progress,
    follow: async (session, lineOut) =>
      followStageJobs(await uploadAll(files, session.store, progress), VOICEMAIL_JOBS, {
        ...session,
        timeoutMs,
        onStarted: ({ fields: { file } }) =>
          progress.update({
            type: "stage",
            file,
            transition: { type: "entered", state: "RUNNING", timestamp: Date.now() },
          }),
        onFinished: (result) => {
          progress.print(jobLine(result), lineOut);
          progress.update({ type: "finished", result });
        },
      }),
    closing: (results, elapsedMs, location) => [summaryLine(results, elapsedMs, location)],
    succeeded: (results) => results.every(isDone),
  });
}

/** Uploads the voicemails one by one under `incoming/voicemail/`, showing each as queued. */
async function uploadAll(
  files: InputFile[],
  store: ObjectStore,
  progress: ProgressLine,
): Promise<Array<StageUpload<{ file: InputFile }>>> {
  const uploads: Array<StageUpload<{ file: InputFile }>> = [];
  for (const file of files) {
    const source = await uploadToStage(store, VOICEMAIL_WORKFLOW, {
      ...file,
      contentType: contentTypeOf(file.name),
    });
    uploads.push({ source, fields: { file } });
    progress.update({ type: "uploaded", file, key: source.key });
  }
  return uploads;
}
