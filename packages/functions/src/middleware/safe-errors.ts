import type { Logger } from "@aws-lambda-powertools/logger";
import type { MiddlewareObj } from "@middy/core";
import { VoxtrailError } from "@voxtrail/core";
import { recordedError } from "../recorded-error";

/**
 * Middy middleware that logs a failure by name and replaces an error that is not ours with a
 * name-only one, so nothing a library put in a message (caller data) crosses into Step Functions.
 *
 * @example
 * middy().use(safeErrors(logger, "Transcribe"));
 */
export function safeErrors(logger: Logger, stage: string): MiddlewareObj {
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
