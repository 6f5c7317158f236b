import * as z from "zod/mini";
import { ArtifactKind } from "./artifact";
import { Boundary, type Processor } from "./boundary";
import { VoxtrailError } from "./errors";

/** The kinds of boundary a policy can name. */
export const BoundaryKind = z.enum(["local", "aws-account", "vpc-endpoint", "third-party"]);
export type BoundaryKind = z.infer<typeof BoundaryKind>;

/**
 * One boundary a kind of data may enter. Optional lists narrow it: `regions` (aws-account),
 * `services` (aws-account, vpc-endpoint), `hosts` (third-party). An omitted list allows any.
 */
export const AllowedBoundary = z.object({
  boundary: BoundaryKind,
  regions: z.optional(z.array(z.string())),
  services: z.optional(z.array(z.string())),
  hosts: z.optional(z.array(z.string())),
  /**
   * A condition outside the pipeline the entry depends on, by name, for auditors and the doctor
   * check: `ai-services-opt-out` (the AWS organization opts the service out of using content to
   * improve its models). The pipeline cannot see it at run time, so it does not narrow the entry.
   */
  requires: z.optional(z.enum(["ai-services-opt-out"])),
  /**
   * `required`: the kind may enter this boundary only redacted (docs/redaction.md): a flow the
   * stage does not send redacted is refused, and the stage checks the bytes before the send.
   */
  redaction: z.optional(z.literal("required")),
});
export type AllowedBoundary = z.infer<typeof AllowedBoundary>;

/**
 * A stage environment's boundary policy (docs/architecture.md, "Principle 4"): for each kind of data, the
 * boundaries it may enter. A kind the policy does not name may enter no boundary at all.
 */
export const BoundaryPolicy = z.object({
  schemaVersion: z.literal(1),
  /** The stage environment the policy belongs to (`local`, `dev`, `production`, ...). */
  environment: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  kinds: z.partialRecord(ArtifactKind, z.array(AllowedBoundary)),
});
export type BoundaryPolicy = z.infer<typeof BoundaryPolicy>;

/** One kind of data entering one provider's boundary, with the policy's verdict on it. */
export const DataFlow = z.object({
  kind: ArtifactKind,
  provider: z.string(),
  model: z.string(),
  boundary: Boundary,
  allowed: z.boolean(),
  /** Set when the stage sends the kind redacted (true) or the policy required it and it was not (false). */
  redacted: z.optional(z.boolean()),
});
export type DataFlow = z.infer<typeof DataFlow>;

/**
 * What the policy said about a stage attempt's data flows, recorded in its activity record:
 * `refused` when any flow was disallowed, in which case no provider was called.
 */
export const PolicyDecision = z.object({
  environment: z.string(),
  outcome: z.enum(["allowed", "refused"]),
  flows: z.array(DataFlow),
});
export type PolicyDecision = z.infer<typeof PolicyDecision>;

/** The kinds of data a processor receives or produces in one stage attempt. */
export interface IntendedFlow {
  processor: Processor;
  kinds: ArtifactKind[];
  /** The kinds of `kinds` the stage sends redacted (docs/redaction.md). */
  redacted?: ArtifactKind[];
}

/**
 * Checks each kind each processor would receive or produce against the policy. Pure: the caller
 * decides what a refusal means (the stage handlers throw `BoundaryViolation` before any call).
 *
 * @example
 * const decision = decideBoundaries(policy, [{ processor: synthesizer.processor, kinds: ["reply-text", "reply-audio"] }]);
 * if (decision.outcome === "refused") throw new BoundaryViolation(describeRefusal(decision));
 */
export function decideBoundaries(policy: BoundaryPolicy, intended: IntendedFlow[]): PolicyDecision {
  const flows: DataFlow[] = [];
  const seen = new Set<string>();
  for (const { processor, kinds, redacted = [] } of intended) {
    for (const kind of kinds) {
      const identity = JSON.stringify([kind, processor.provider, processor.model, processor.boundary]);
      if (seen.has(identity)) continue;
      seen.add(identity);
      const rules = (policy.kinds[kind] ?? []).filter((rule) => admits(rule, processor.boundary));
      const isRedacted = redacted.includes(kind);
      // An entry that requires redaction admits only a redacted flow; one that does not admits any.
      const allowed = rules.some((rule) => rule.redaction !== "required" || isRedacted);
      const required = rules.length > 0 && rules.every((rule) => rule.redaction === "required");
      flows.push({
        kind,
        provider: processor.provider,
        model: processor.model,
        boundary: processor.boundary,
        allowed,
        ...(isRedacted || required ? { redacted: isRedacted } : {}),
      });
    }
  }
  return {
    environment: policy.environment,
    outcome: flows.every((flow) => flow.allowed) ? "allowed" : "refused",
    flows,
  };
}

/** A log-safe sentence naming each refused flow: kinds, boundaries and providers, never data. */
export function describeRefusal(decision: PolicyDecision): string {
  const refused = decision.flows
    .filter((flow) => !flow.allowed)
    .map(
      (flow) =>
        `${flow.redacted === false ? "unredacted " : ""}${flow.kind} into ${describeBoundary(flow.boundary)} (provider ${flow.provider})`,
    );
  return `boundary policy "${decision.environment}" forbids ${refused.join("; ")}`;
}

/** A short readable name of a boundary: `local`, `aws-account:transcribe@eu-west-1`, `third-party:api.example.com`. */
export function describeBoundary(boundary: Boundary): string {
  switch (boundary.kind) {
    case "local":
      return "local";
    case "aws-account":
      return `aws-account:${boundary.service}@${boundary.region}`;
    case "vpc-endpoint":
      return `vpc-endpoint:${boundary.service}`;
    case "third-party":
      return `third-party:${boundary.host}`;
  }
}

function admits(rule: AllowedBoundary, boundary: Boundary): boolean {
  if (rule.boundary !== boundary.kind) return false;
  switch (boundary.kind) {
    case "local":
      return true;
    case "aws-account":
      return within(rule.regions, boundary.region) && within(rule.services, boundary.service);
    case "vpc-endpoint":
      return within(rule.services, boundary.service);
    case "third-party":
      return within(rule.hosts, boundary.host);
  }
}

function within(list: string[] | undefined, value: string): boolean {
  return list === undefined || list.includes(value);
}

/** A stage environment's boundary policy is missing or malformed: the pipeline refuses to run without one. */
export class BoundaryPolicyInvalid extends VoxtrailError {
  readonly retryable = false;
}
