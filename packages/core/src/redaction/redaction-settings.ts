import * as z from "zod/mini";
import { InvalidInput } from "../errors";

/**
 * Whether a stage redacts callers' data, and what it keeps (docs/redaction.md). The names are
 * Amazon Transcribe's `RedactionOutput`: `redacted` keeps no transcript with Transcribe's PII types
 * in it; `redacted_and_unredacted` keeps the whole transcript too. Either way, everything stored
 * outside the job's unredacted location (`artifacts/<jobId>/unredacted/`) is redacted by our own
 * redactor as well, and only the stages that need it read that location.
 */
export const RedactionOutput = z.enum(["redacted", "redacted_and_unredacted"]);
export type RedactionOutput = z.infer<typeof RedactionOutput>;

export const RedactionSettings = z.object({
  output: RedactionOutput,
  /**
   * Transcribe's `PiiEntityTypes` (`NAME`, `PHONE`, ..., `ALL`); omitted, Transcribe redacts all
   * of them. Our redactor's kinds (order and account numbers, names from the records) are always on.
   */
  piiEntityTypes: z.optional(z.array(z.string().check(z.regex(/^[A-Z_]+$/))).check(z.maxLength(11))),
});
export type RedactionSettings = z.infer<typeof RedactionSettings>;

/** The environment variable a deployed function reads its stage's redaction from (JSON; unset: off). */
export const REDACTION_ENVIRONMENT = "VOXTRAIL_REDACTION";

/**
 * The redaction a function was given as JSON in its environment, or undefined when none was.
 *
 * @throws InvalidInput naming the variable when it is set but not redaction settings.
 */
export function redactionFromEnvironment(env: NodeJS.ProcessEnv): RedactionSettings | undefined {
  const raw = env[REDACTION_ENVIRONMENT]?.trim();
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new InvalidInput(`${REDACTION_ENVIRONMENT} is not JSON`);
  }
  const parsed = RedactionSettings.safeParse(value);
  if (!parsed.success) throw new InvalidInput(`${REDACTION_ENVIRONMENT} is not redaction settings`);
  return parsed.data;
}
