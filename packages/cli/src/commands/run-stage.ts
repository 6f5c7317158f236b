import { createReadStream } from "node:fs";
import { S3Client } from "@aws-sdk/client-s3";
import { SFNClient } from "@aws-sdk/client-sfn";
import { SSMClient } from "@aws-sdk/client-ssm";
import { collectInputFiles, contentTypeOf } from "@voxtrail/local";
import { S3Store } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { isDone, jobLine, summaryLine } from "../job-lines";
import { ProgressLine } from "../progress";
import { ExecutionFinder } from "../stage/execution-finder";
import { followStageJobs, type StageUpload } from "../stage/stage-jobs";
import { readStageResources } from "../stage/stage-lookup";
import { UsageError } from "../usage-error";

/** Options of `voxtrail run --stage`. */
export interface RunStageOptions {
  stage: string;
  json: boolean;
  /** Seconds to wait for the jobs before reporting the unfinished ones as timed out. */
  timeout: string;
}

/** How far this machine's clock may be ahead of Step Functions' when looking for executions. */
const CLOCK_SKEW_MS = 60_000;
/** Pause between two looks at the executions and reports. */
const POLL_INTERVAL_MS = 1000;

/**
 * `voxtrail run --stage NAME FILES`: uploads each voicemail to the deployed stage's bucket under
 * `incoming/voicemail/`, follows the execution EventBridge starts for it, and prints the same job
 * lines and summary as a local run. The stage is found through its SSM parameter; every client
 * uses the standard AWS configuration (region, profiles, `AWS_ENDPOINT_URL_<SERVICE>`). Resolves to
 * the exit code: 0 when every job succeeded, 1 otherwise.
 */
export async function runStageCommand(paths: string[], options: RunStageOptions): Promise<number> {
  const timeoutSeconds = Number(options.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError(
      `--timeout must be a positive number of seconds, got ${JSON.stringify(options.timeout)}`,
    );
  }
  if (paths.length === 0) throw new UsageError("run --stage needs the voicemail files to upload");
  const files = await collectInputFiles(paths);
  if (files.length === 0) throw new UsageError(`no .wav files found in ${paths.join(", ")}`);

  const resources = await readStageResources(new SSMClient({}), options.stage);
  const store = new S3Store({ client: new S3Client({ region: resources.region }), bucket: resources.bucket });
  const sfn = new SFNClient({ region: resources.region });
  const lineOut = options.json ? process.stderr : process.stdout;
  process.stderr.write(
    `voxtrail: ${files.length} voicemail(s) to stage ${resources.stage} (s3://${resources.bucket}, ${resources.region})\n`,
  );

  const started = performance.now();
  const finder = new ExecutionFinder(
    sfn,
    resources.voicemailStateMachineArn,
    new Date(Date.now() - CLOCK_SKEW_MS),
  );
  const progress = new ProgressLine(files.length);
  try {
    const uploads: StageUpload[] = [];
    for (const file of files) {
      const key = keys.incomingVoicemail(file.name);
      const stored = await store.put(key, createReadStream(file.path), {
        contentType: contentTypeOf(file.name),
      });
      uploads.push({
        file,
        source: {
          bucket: resources.bucket,
          key,
          ...(stored.versionId ? { versionId: stored.versionId } : {}),
          ...(stored.etag ? { etag: stored.etag } : {}),
        },
      });
      progress.update({ type: "uploaded", file, key });
    }
    const results = await followStageJobs(uploads, {
      sfn,
      store,
      finder,
      timeoutMs: timeoutSeconds * 1000,
      pollIntervalMs: POLL_INTERVAL_MS,
      onProgress: (event) => {
        if (event.type === "finished") progress.print(jobLine(event.result), lineOut);
        progress.update(event);
      },
    });
    progress.clear();
    lineOut.write(`${summaryLine(results, performance.now() - started, `s3://${resources.bucket}`)}\n`);
    if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return results.every(isDone) ? 0 : 1;
  } finally {
    progress.clear();
  }
}
