import {
  DescribeEffectivePolicyCommand,
  type EffectivePolicy,
  type OrganizationsClient,
} from "@aws-sdk/client-organizations";
import { errorCode, type Finding, isAccessDenied, missing, ok, unchecked } from "../findings";

const CHECK = "ai-opt-out";

/** What the effective policy resolves one service to, and which entry said it. */
interface Resolved {
  /** `optOut`, `optIn`, or whatever else the entry holds. */
  value: string;
  /** The entry that decided: the service's own or `default`. */
  entry: string;
  /** `default`'s value when the service's own entry decided. */
  overridden?: string | undefined;
}

/** The services' names by their opt-out policy key, for the messages. */
const SERVICE_NAMES: Record<string, string> = { transcribe: "Amazon Transcribe" };

/** The account-reading step, for `unchecked` messages. */
const READ = "read this account's effective AI services opt-out policy";

/** The policy that opts `service` out, for the messages (AWS's documented syntax). */
function optOutPolicy(service: string): string {
  return JSON.stringify({ services: { [service]: { opt_out_policy: { "@@assign": "optOut" } } } });
}

/** What to do when the account is not opted out, for the messages. */
function optOut(service: string): string {
  return `in the organization's management account, create an AI services opt-out policy such as ${optOutPolicy(service)} and attach it to this account or an OU above it`;
}

/** Why it matters, for the messages. */
function because(service: string): string {
  return `the stage sends its callers' content to ${SERVICE_NAMES[service] ?? service}, which may store and use it for service improvement (model training included) unless the account is opted out`;
}

/** A `services.<name>.opt_out_policy` value, as resolved (`"optOut"`) or as written (`{"@@assign": "optOut"}`). */
function optOutValue(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  const value: unknown = (entry as Record<string, unknown>).opt_out_policy;
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) {
    const assigned: unknown = (value as Record<string, unknown>)["@@assign"];
    if (typeof assigned === "string") return assigned;
  }
  return undefined;
}

/**
 * What `PolicyContent` resolves `service` to: its own entry, else `default`'s, else undefined.
 * Throws a `SyntaxError` when the content is not JSON.
 */
function resolve(content: string, service: string): Resolved | undefined {
  const policy: unknown = JSON.parse(content);
  const services: unknown =
    typeof policy === "object" && policy !== null ? (policy as Record<string, unknown>).services : undefined;
  if (typeof services !== "object" || services === null) return undefined;
  const entries = services as Record<string, unknown>;
  const own = optOutValue(entries[service]);
  const fallback = optOutValue(entries.default);
  if (own !== undefined) return { value: own, entry: service, overridden: fallback };
  if (fallback !== undefined) return { value: fallback, entry: "default" };
  return undefined;
}

/**
 * Checks that the account is opted out of content use for `service` (an AI services opt-out
 * policy key: `transcribe` for Amazon Transcribe), with Organizations' `DescribeEffectivePolicy`
 * for `AISERVICES_OPT_OUT_POLICY` and no target (the caller's own account; a member account may
 * ask about itself). The effective policy's `PolicyContent` is JSON, `services.<key>.opt_out_policy`
 * being `"optOut"` / `"optIn"` (resolved) or `{"@@assign": ...}` (as written); the service's
 * own entry wins over `default`. No entry, `optIn`, `EffectivePolicyNotFoundException` (no
 * opt-out policy applies) and `AWSOrganizationsNotInUseException` (the account is in no
 * organization) are `missing`; a refusal is `unchecked`, naming `organizations:DescribeEffectivePolicy`.
 *
 * @example
 * await checkAiServicesOptOut(organizations);
 * // [{ check: "ai-opt-out", status: "ok", subject: "transcribe", message: "this account's effective AI services opt-out policy opts it out of transcribe by its default entry (it has no transcribe entry)" }]
 */
export async function checkAiServicesOptOut(
  organizations: OrganizationsClient,
  service = "transcribe",
): Promise<Finding[]> {
  let effective: EffectivePolicy | undefined;
  try {
    effective = (
      await organizations.send(
        new DescribeEffectivePolicyCommand({ PolicyType: "AISERVICES_OPT_OUT_POLICY" }),
      )
    ).EffectivePolicy;
  } catch (error) {
    const code = errorCode(error);
    const said = `${code}: ${error instanceof Error ? error.message : ""}`;
    if (code === "EffectivePolicyNotFoundException") {
      return [
        missing(
          CHECK,
          service,
          `no AI services opt-out policy applies to this account (${said}): ${because(service)}; ${optOut(service)} (enable the AI services opt-out policy type on the organization's root first if it is not)`,
        ),
      ];
    }
    if (code === "AWSOrganizationsNotInUseException") {
      return [
        missing(
          CHECK,
          service,
          `this account is in no AWS organization (${said}): ${because(service)}; AI services opt-out policies need AWS Organizations, and AWS Organizations is the documented way to opt out: create an organization (or join one) and attach an AI services opt-out policy such as ${optOutPolicy(service)} to this account; otherwise contact AWS Support to opt this account out of ${SERVICE_NAMES[service] ?? service}`,
        ),
      ];
    }
    const refused = unchecked(CHECK, service, READ, error);
    if (isAccessDenied(error)) {
      return [
        {
          ...refused,
          message: `${refused.message}: let the identity running the doctor call organizations:DescribeEffectivePolicy`,
        },
      ];
    }
    return [refused];
  }
  let resolved: Resolved | undefined;
  try {
    resolved = resolve(effective?.PolicyContent ?? "{}", service);
  } catch (error) {
    return [unchecked(CHECK, service, READ, error)];
  }
  if (!resolved) {
    return [
      missing(
        CHECK,
        service,
        `this account's effective AI services opt-out policy has no ${service} entry and no default: ${because(service)}; ${optOut(service)}`,
      ),
    ];
  }
  const by =
    resolved.entry === service
      ? `its ${service} entry${resolved.overridden === undefined ? "" : `, which wins over default (${resolved.overridden})`}`
      : `its default entry (it has no ${service} entry)`;
  if (resolved.value !== "optOut") {
    return [
      missing(
        CHECK,
        service,
        `this account's effective AI services opt-out policy sets ${service} to ${resolved.value}, not optOut, by ${by}: ${because(service)}; in the organization's management account, change the AI services opt-out policy that sets it to optOut, or attach one such as ${optOutPolicy(service)} closer to this account (to it, or to an OU below the one that sets it)`,
      ),
    ];
  }
  return [
    ok(
      CHECK,
      service,
      `this account's effective AI services opt-out policy opts it out of ${service} by ${by}`,
    ),
  ];
}
