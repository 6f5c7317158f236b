import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import { KmsSigner } from "@voxtrail/lineage";
import { FUNCTION_ENVIRONMENT, PIPELINE_METRICS } from "@voxtrail/workflow";
import { type DigestRun, signLineageDigest } from "../handlers/sign-lineage-digest";
import { safeErrors } from "../middleware/safe-errors";
import { builtOnce } from "./built-once";
import { requiredEnv, stageStore } from "./lambda-dependencies";

const logger = new Logger({ serviceName: PIPELINE_METRICS.service });

/**
 * The stage's bucket (digests written with the stage's lineage retention, when its bucket has
 * Object Lock) and its KMS signing key, from the environment, built on the first invocation; the
 * signer reads the key's public half once per execution environment.
 */
const dependencies = builtOnce(async () => ({
  store: stageStore(process.env),
  signer: new KmsSigner({ keyId: requiredEnv(process.env, FUNCTION_ENVIRONMENT.lineageSigningKey) }),
}));

/**
 * Lambda entry point of the lineage signer, which EventBridge Scheduler invokes every hour
 * (stacks/lineage-signing.ts): it writes and signs the next lineage digest with the stage's KMS
 * key, and logs what it covered. A failure is logged by name and fails the invocation.
 */
export const handler = middy<unknown, DigestRun>(async () => {
  const run = await signLineageDigest(await dependencies());
  logger.info("lineage digest", { ...run });
  return run;
})
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(safeErrors(logger, "SignLineage"));
