import type { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import { InvalidInput, VoxtrailError } from "@voxtrail/core";
import type { Context } from "aws-lambda";
import type { z } from "zod";
import { recordedError } from "../recorded-error";
import { withInvocationDeadline } from "./invocation-deadline";

/** A stage's Lambda handler: `(event, context) => result`, as Lambda and the local runtime call it. */
export type StageHandler<O> = (event: unknown, context: Context) => Promise<O>;

/**
 * Builds a thin stage handler: Powertools Logger with the Lambda context, the input parsed with
 * `schema` (a mismatch is `InvalidInput`, naming the paths, not the values), and errors that are
 * safe to cross into Step Functions: our named errors as they are, any other error reduced to its
 * name. The invocation's deadline is in scope for the stage's activity (`withActivity`). With `metrics`, Powertools' `logMetrics` flushes what the attempt added (its timings, as
 * CloudWatch EMF on stdout) when the invocation ends, failed or not.
 *
 * @example
 * export const handler = stageHandler(logger, "Transcribe", TranscribeInput, (input) => transcribe(deps, input));
 */
export function stageHandler<I, O>(
  logger: Logger,
  stage: string,
  schema: z.ZodType<I>,
  run: (input: I) => Promise<O>,
  metrics?: Metrics,
): StageHandler<O> {
  const handler = middy<unknown, O>().use(injectLambdaContext(logger, { resetKeys: true }));
  if (metrics) handler.use(logMetrics(metrics));
  return handler.use(safeErrors(logger, stage)).handler(async (event: unknown, context: Context) => {
    const parsed = schema.safeParse(event);
    if (!parsed.success) {
      const paths = parsed.error.issues.map((issue) => issue.path.join(".") || "(root)");
      throw new InvalidInput(`${stage} input is malformed at: ${[...new Set(paths)].join(", ")}`);
    }
    return withInvocationDeadline(context, () => run(parsed.data));
  }) as unknown as StageHandler<O>;
}

/** Logs a failure by name and replaces errors that are not ours with a name-only error. */
function safeErrors(logger: Logger, stage: string): MiddlewareObj {
  return {
    onError: async (request) => {
      const safe = recordedError(request.error);
      logger.error("stage failed", { stage, errorName: safe.name, errorMessage: safe.message });
      if (!(request.error instanceof VoxtrailError)) {
        const replacement = new Error(safe.message);
        replacement.name = safe.name;
        request.error = replacement;
      }
    },
  };
}
