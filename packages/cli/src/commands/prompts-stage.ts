import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { manifestContentTypeOf } from "@voxtrail/local";
import { PROMPTS_WORKFLOW, type StageResources, stageParameterName } from "@voxtrail/workflow";
import { PromptsProgressLine } from "../prompts-progress";
import { promptsJobs } from "../stage/prompts-jobs";
import { runOnStage, type StageOptions } from "../stage/stage-command";
import { followStageJobs } from "../stage/stage-jobs";
import { uploadToStage } from "../stage/stage-upload";
import { timeoutMsOf } from "../stage/timeout-option";
import { UsageError } from "../usage-error";
import { promptsFailureLines, promptsSucceeded, promptsSummaryLine } from "./prompts";

/** How long `prompts --stage` follows a job unless told: 15 minutes. */
const PROMPTS_TIMEOUT_SECONDS = 900;

/** The stage's SSM parameter names no prompts state machine: the stage does not deploy the prompts workflow. */
export class PromptsNotDeployed extends Error {
  override readonly name = "PromptsNotDeployed";
}

/**
 * `voxtrail prompts --stage NAME MANIFEST`: uploads the manifest to the deployed stage's bucket
 * under `incoming/prompts/`, follows the execution EventBridge starts for it to the job's report,
 * and prints the same bad-row and failure lines and summary as a local run. The stage is found
 * through its SSM parameter; every client uses the standard AWS configuration (region, profiles,
 * `AWS_ENDPOINT_URL_<SERVICE>`). Rejects with {@link PromptsNotDeployed} when the stage has no
 * prompts state machine. Resolves to the exit code: 0 when every row became a prompt, 1 otherwise.
 *
 * @example
 * process.exitCode = await promptsStageCommand(["menu.csv"], { stage: "dev", json: false, timeout: "900" });
 */
export async function promptsStageCommand(positionals: string[], options: StageOptions): Promise<number> {
  const [manifest, ...extra] = positionals;
  if (manifest === undefined || extra.length > 0) {
    throw new UsageError("prompts --stage takes exactly one MANIFEST");
  }
  const timeoutMs = timeoutMsOf(options.timeout, PROMPTS_TIMEOUT_SECONDS);
  if (!(await stat(manifest).catch(() => undefined))?.isFile()) {
    throw new UsageError(`no manifest file ${manifest}`);
  }
  const progress = new PromptsProgressLine();
  return runOnStage(options, {
    what: `prompts from ${manifest}`,
    stateMachineArnOf: promptsStateMachineArn,
    progress,
    follow: async (session) => {
      const source = await uploadToStage(session.store, PROMPTS_WORKFLOW, {
        path: manifest,
        name: basename(manifest),
        contentType: manifestContentTypeOf(manifest),
      });
      const jobs = promptsJobs((event) => progress.update(event));
      const [result] = await followStageJobs([{ source, fields: {} }], jobs, { ...session, timeoutMs });
      return result as NonNullable<typeof result>;
    },
    closing: (result, elapsedMs, location) => [
      ...promptsFailureLines(result),
      promptsSummaryLine(result, elapsedMs, location),
    ],
    succeeded: promptsSucceeded,
  });
}

/** The stage's prompts state machine; rejects with {@link PromptsNotDeployed} when it deploys none. */
function promptsStateMachineArn(resources: StageResources): string {
  if (resources.promptsStateMachineArn === undefined) {
    throw new PromptsNotDeployed(
      `stage ${resources.stage} does not deploy the prompts workflow: SSM parameter ${stageParameterName(resources.stage)} names no promptsStateMachineArn`,
    );
  }
  return resources.promptsStateMachineArn;
}
