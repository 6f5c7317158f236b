import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import { PIPELINE_METRICS } from "@voxtrail/workflow";
import { type IndexRun, updateLineageIndex } from "../handlers/compact-lineage-index";
import { safeErrors } from "../middleware/safe-errors";
import { builtOnce } from "./built-once";
import { stageStore } from "./lambda-dependencies";

const logger = new Logger({ serviceName: PIPELINE_METRICS.service });

/** The stage's bucket, from the environment, built on the first invocation. */
const dependencies = builtOnce(async () => ({ store: stageStore(process.env) }));

/**
 * Lambda entry point of the lineage index compactor, which EventBridge Scheduler invokes every 15
 * minutes (stacks/lineage-index.ts): it compacts the jobs finished since the last run into the
 * lineage edge index and points the Athena symlinks at the latest generation's files, and logs
 * counts (no key, no job id). A failure is logged by name and fails the invocation; the next run
 * picks up where it stopped.
 */
export const handler = middy<unknown, IndexRun>(async () => {
  const run = await updateLineageIndex(await dependencies());
  logger.info("lineage index", { ...run });
  return run;
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(safeErrors(logger, "CompactLineageIndex"));
