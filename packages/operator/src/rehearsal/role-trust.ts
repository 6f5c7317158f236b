import type { Decision, PolicyEvaluator } from "./policy-evaluator";
import type { RolePlan, StagePlan } from "./stage-plan";

/** An account that is not the stage's: where a confused deputy's request would come from. */
const ANOTHER_ACCOUNT = "999999999999";

/**
 * One of the stage's roles as AWS uses it: the service that assumes it and what that service tells
 * IAM of the request it acts for, `aws:SourceAccount` and `aws:SourceArn` (Lambda documents none
 * for an execution role: `source` is absent, and the trust policy may require neither).
 */
export interface Assumption {
  /** The principal whose role it is, as the rehearsal prints it (`function StageIngest`). */
  label: string;
  role: RolePlan;
  service: string;
  source?: { account: string; arn: string };
}

/**
 * Every role the stage's principals run with, and who assumes it: Lambda each function's
 * execution role; Step Functions each state machine's, for that state machine; EventBridge each
 * rule target's, for the rule; EventBridge Scheduler each schedule's, for its schedule group.
 *
 * @example
 * assumptions(plan).find((a) => a.label === "rule VoicemailArrived")?.service; // "events.amazonaws.com"
 */
export function assumptions(plan: StagePlan): Assumption[] {
  const from = (arn: string) => ({ account: plan.account, arn });
  return [
    ...plan.functions.map((fn) => ({
      label: `function ${fn.component}`,
      role: fn.role,
      service: "lambda.amazonaws.com",
    })),
    ...plan.stateMachines.map((machine) => ({
      label: `state machine ${machine.name}`,
      role: machine.role,
      service: "states.amazonaws.com",
      source: from(machine.arn),
    })),
    ...plan.rules.map((rule) => ({
      label: `rule ${rule.logicalName}`,
      role: rule.role,
      service: "events.amazonaws.com",
      source: from(rule.arn),
    })),
    ...plan.schedules.map((schedule) => ({
      label: `schedule ${schedule.logicalName}`,
      role: schedule.role,
      service: "scheduler.amazonaws.com",
      source: from(schedule.groupArn),
    })),
  ];
}

/** One role's trust policy, judged: IAM's decision on its service assuming it, and what else is wrong. */
export interface TrustCheck {
  assumption: Assumption;
  /** The service assuming the role as it does in the stage: must be allowed. */
  decision: Decision;
  /**
   * What the trust policy allows that it must not: another principal, or the service acting for
   * another account or another resource (the confused deputy: its `aws:SourceAccount` or
   * `aws:SourceArn` condition missing or too wide).
   */
  problems: string[];
}

/**
 * Judges the trust policy of every role of the stage with `evaluator`: the service that assumes the
 * role may ({@link Assumption}); no other principal is named in an Allow of it; and, where the
 * service says on whose behalf it acts, the same service may not assume it for another account
 * (`aws:SourceAccount`, the `aws:SourceArn` its own) or for another resource of the account
 * (`aws:SourceArn`).
 *
 * @example
 * const checks = await checkTrust(plan, evaluator);
 * checks.filter((c) => !c.decision.allowed || c.problems.length > 0); // [] for a sound stage
 */
export async function checkTrust(plan: StagePlan, evaluator: PolicyEvaluator): Promise<TrustCheck[]> {
  return Promise.all(
    assumptions(plan).map(async (assumption) => {
      const { role, service, source } = assumption;
      const assume = (from: { account: string; arn: string } | undefined) =>
        evaluator.assumeRole({
          role,
          service,
          ...(from ? { context: { "aws:SourceAccount": from.account, "aws:SourceArn": from.arn } } : {}),
        });
      const problems = trustedPrincipals(role)
        .filter((principal) => principal !== `Service ${service}`)
        .map((principal) => `its trust policy lets ${principal} assume it: only ${service} may`);
      if (source) {
        const deputies = [
          { from: { account: ANOTHER_ACCOUNT, arn: source.arn }, condition: "aws:SourceAccount" },
          { from: { account: source.account, arn: `${source.arn}-another` }, condition: "aws:SourceArn" },
        ];
        for (const { from, condition } of deputies) {
          if ((await assume(from)).allowed) {
            problems.push(
              `its trust policy lets ${service} assume it for ${from.arn} in account ${from.account}, not only for ${source.arn} in ${source.account}: its ${condition} condition is missing or too wide`,
            );
          }
        }
      }
      return { assumption, decision: await assume(source), problems };
    }),
  );
}

/**
 * Every principal an Allow statement of the role's trust policy names (`Service states.amazonaws.com`,
 * `AWS arn:...:root`, `*`), and `NotPrincipal` for a statement that allows everyone but some.
 */
function trustedPrincipals(role: RolePlan): string[] {
  return role.trustPolicy.Statement.filter((statement) => statement.Effect === "Allow").flatMap(
    (statement) => {
      if (statement.NotPrincipal !== undefined) return ["NotPrincipal"];
      const principal = statement.Principal as string | Record<string, string | string[]> | undefined;
      if (principal === undefined || typeof principal === "string") return [String(principal)];
      return Object.entries(principal).flatMap(([type, ids]) => [ids].flat().map((id) => `${type} ${id}`));
    },
  );
}
