import type { MiddlewareObj } from "@middy/core";
import { InvalidInput } from "@voxtrail/core";
import * as z from "zod/mini";

/**
 * Middy middleware that replaces the event with its parse by `schema`; a mismatch is
 * `InvalidInput` naming the paths, never the values.
 *
 * @example
 * middy().use(parseInput("Transcribe", TranscribeInput));
 */
export function parseInput(stage: string, schema: z.core.$ZodType): MiddlewareObj {
  return {
    before: async (request) => {
      const parsed = z.safeParse(schema, request.event);
      if (!parsed.success) {
        const paths = parsed.error.issues.map((issue) => issue.path.join(".") || "(root)");
        throw new InvalidInput(`${stage} input is malformed at: ${[...new Set(paths)].join(", ")}`);
      }
      request.event = parsed.data;
    },
  };
}
