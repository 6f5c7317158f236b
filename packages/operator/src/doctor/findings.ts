/** What one check found: passed, something the account lacks, or the check could not run. */
export type FindingStatus = "ok" | "missing" | "unchecked";

/**
 * One line of the doctor's answer. `missing` is a prerequisite the account lacks (the message
 * says what to do); `unchecked` is a check that could not ask (credentials, permissions, network):
 * the message carries AWS's error.
 */
export interface Finding {
  /** The check that found it, e.g. `endpoint-quota`. */
  check: string;
  status: FindingStatus;
  /** What was asked about: a model package ARN, an endpoint name, a quota name, a model id. */
  subject: string;
  /** One sentence: what is there, or what is missing and what to do about it. */
  message: string;
}

/** A finding that passed. */
export function ok(check: string, subject: string, message: string): Finding {
  return { check, status: "ok", subject, message };
}

/** A prerequisite the account lacks. */
export function missing(check: string, subject: string, message: string): Finding {
  return { check, status: "missing", subject, message };
}

/** A check that could not get an answer from AWS; `error` is what the SDK threw. */
export function unchecked(check: string, subject: string, asked: string, error: unknown): Finding {
  return { check, status: "unchecked", subject, message: `could not ${asked}: ${describeError(error)}` };
}

/** The AWS error code of what the SDK threw (`ValidationException`, `AccessDeniedException`, ...). */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** True for AWS's refusals: `AccessDeniedException` (JSON protocols) or `AccessDenied`. */
export function isAccessDenied(error: unknown): boolean {
  const code = errorCode(error);
  return code === "AccessDeniedException" || code === "AccessDenied";
}

/**
 * True when SageMaker says a resource does not exist: it answers `ValidationException` with a
 * message such as "Could not find endpoint" or "... does not exist".
 */
export function isSageMakerNotFound(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return (
    errorCode(error) === "ValidationException" && /could not find|does not exist|not found/i.test(message)
  );
}

/** `Name: message`, for a line. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * What a SageMaker `Describe*` call answered, or the findings that stand for its failure: a
 * resource that does not exist is `missing` with `notFound`'s message (given SageMaker's own),
 * `refused` (when given) words an access denial, anything else leaves the check `unchecked`.
 *
 * @example
 * const described = await describedOr(CHECK, name, `describe endpoint ${name}`, () => send(...), (message) => `...${message}`);
 * if (Array.isArray(described)) return described;
 */
export async function describedOr<T extends object>(
  check: string,
  subject: string,
  asked: string,
  describe: () => Promise<T>,
  notFound: (message: string) => string,
  refused?: (message: string) => string,
): Promise<T | Finding[]> {
  try {
    return await describe();
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (isSageMakerNotFound(error)) return [missing(check, subject, notFound(message))];
    if (refused && isAccessDenied(error)) {
      return [missing(check, subject, refused(`${errorCode(error)}: ${message}`))];
    }
    return [unchecked(check, subject, asked, error)];
  }
}
