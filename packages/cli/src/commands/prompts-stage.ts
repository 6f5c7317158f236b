import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { SFNClient } from "@aws-sdk/client-sfn";
import { SSMClient } from "@aws-sdk/client-ssm";
import { manifestContentTypeOf } from "@voxtrail/local";
import { S3Store } from "@voxtrail/storage";
import { promptKeys, stageParameterName } from "@voxtrail/workflow";
import { PromptsProgressLine } from "../prompts-progress";
import { ExecutionFinder } from "../stage/execution-finder";
import { followPromptsJob } from "../stage/prompts-job";
import { readStageResources } from "../stage/stage-lookup";
import { UsageError } from "../usage-error";
import { promptsFailureLines, promptsSucceeded, promptsSummaryLine } from "./prompts";

/** Options of `voxtrail prompts --stage`. */
export interface PromptsStageOptions {
  stage: string;
  json: boolean;
  /** Seconds to wait for the job before reporting it as timed out. */
  timeout: string;
}

/** The stage's SSM parameter names no prompts state machine: the stage does not deploy the prompts workflow. */
export class PromptsNotDeployed extends Error {
  override readonly name = "PromptsNotDeployed";
}

/** How far this machine's clock may be ahead of Step Functions' when looking for executions. */
const CLOCK_SKEW_MS = 60_000;
/** Pause between two looks at the execution and the job's objects. */
const POLL_INTERVAL_MS = 1000;

/**
 * `voxtrail prompts --stage NAME MANIFEST`: uploads the manifest to the deployed stage's bucket
 * under `incoming/prompts/`, follows the execution EventBridge starts for it to the job's report,
 * and prints the same bad-row and failure lines and summary as a local run. The stage is found
 * through its SSM parameter; every client uses the standard AWS configuration (region, profiles,
 * `AWS_ENDPOINT_URL_<SERVICE>`). Rejects with {@link PromptsNotDeployed} when the stage has no
 * prompts state machine. Resolves to the exit code: 0 when every row became a prompt, 1 otherwise.
 */
export async function promptsStageCommand(
  positionals: string[],
  options: PromptsStageOptions,
): Promise<number> {
  const [manifest, ...extra] = positionals;
  if (manifest === undefined || extra.length > 0) {
    throw new UsageError("prompts --stage takes exactly one MANIFEST");
  }
  const timeoutSeconds = Number(options.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError(
      `--timeout must be a positive number of seconds, got ${JSON.stringify(options.timeout)}`,
    );
  }
  if (!(await stat(manifest).catch(() => undefined))?.isFile()) {
    throw new UsageError(`no manifest file ${manifest}`);
  }

  const resources = await readStageResources(new SSMClient({}), options.stage);
  const stateMachineArn = resources.promptsStateMachineArn;
  if (stateMachineArn === undefined) {
    throw new PromptsNotDeployed(
      `stage ${resources.stage} does not deploy the prompts workflow: SSM parameter ${stageParameterName(resources.stage)} names no promptsStateMachineArn`,
    );
  }
  const store = new S3Store({ client: new S3Client({ region: resources.region }), bucket: resources.bucket });
  const sfn = new SFNClient({ region: resources.region });
  const lineOut = options.json ? process.stderr : process.stdout;
  process.stderr.write(
    `voxtrail: prompts from ${manifest} to stage ${resources.stage} (s3://${resources.bucket}, ${resources.region})\n`,
  );

  const started = performance.now();
  const finder = new ExecutionFinder(sfn, stateMachineArn, new Date(Date.now() - CLOCK_SKEW_MS));
  const progress = new PromptsProgressLine();
  try {
    const key = promptKeys.incomingManifest(basename(manifest));
    const stored = await store.put(key, createReadStream(manifest), {
      contentType: manifestContentTypeOf(manifest),
    });
    const result = await followPromptsJob(
      {
        bucket: resources.bucket,
        key,
        ...(stored.versionId ? { versionId: stored.versionId } : {}),
        ...(stored.etag ? { etag: stored.etag } : {}),
      },
      {
        sfn,
        store,
        finder,
        timeoutMs: timeoutSeconds * 1000,
        pollIntervalMs: POLL_INTERVAL_MS,
        onProgress: (event) => progress.update(event),
      },
    );
    progress.clear();
    for (const line of promptsFailureLines(result)) lineOut.write(`${line}\n`);
    lineOut.write(`${promptsSummaryLine(result, performance.now() - started, `s3://${resources.bucket}`)}\n`);
    if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return promptsSucceeded(result) ? 0 : 1;
  } finally {
    progress.clear();
  }
}
