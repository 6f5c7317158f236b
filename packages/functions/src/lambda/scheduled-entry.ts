import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import { builtOnce } from "@voxtrail/core";
import { PIPELINE_METRICS } from "@voxtrail/workflow";
import { safeErrors } from "../middleware/safe-errors";

/**
 * The Lambda entry point of a scheduled job (EventBridge Scheduler invokes it, with no input):
 * builds its dependencies on the first invocation, runs `work`, and logs what the run returns
 * under `logMessage` (counts only: no key, no job id). A failure is logged by name and fails the
 * invocation, under the name `name` (`safeErrors`).
 *
 * @example
 * export const handler = scheduledEntry("SignLineage", "lineage digest", dependencies, signLineageDigest);
 */
export function scheduledEntry<D, R extends object>(
  name: string,
  logMessage: string,
  dependencies: () => Promise<D>,
  work: (deps: D) => Promise<R>,
) {
  const logger = new Logger({ serviceName: PIPELINE_METRICS.service });
  const built = builtOnce(dependencies);
  return middy<unknown, R>(async () => {
    const run = await work(await built());
    logger.info(logMessage, { ...run } as Record<string, unknown>);
    return run;
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(safeErrors(logger, name));
}
