import { TRANSCRIBE_SERVICE } from "../../../../stacks/permissions";
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
  /**
   * A resource of the stage's account the service must not act for with this role: checked
   * against `aws:SourceArn` (`<source>-another` unless given: a trust policy naming a prefix of
   * ARNs needs one outside it).
   */
  foreignArn?: string;
}

/**
 * Every role the stage's principals run with, and who assumes it: Lambda each function's
 * execution role; Step Functions each state machine's, for that state machine; EventBridge each
 * rule target's, for the rule; EventBridge Scheduler each schedule's, for its schedule group;
 * Amazon Transcribe the data-access role, for a job of the stage (its name prefix), never for
 * another stage's job.
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
    ...plan.rules.flatMap((rule) =>
      rule.role
        ? [
            {
              label: `rule ${rule.logicalName}`,
              role: rule.role,
              service: "events.amazonaws.com",
              source: from(rule.arn),
            },
          ]
        : [],
    ),
    ...plan.schedules.map((schedule) => ({
      label: `schedule ${schedule.logicalName}`,
      role: schedule.role,
      service: "scheduler.amazonaws.com",
      source: from(schedule.groupArn),
    })),
    ...plan.serviceRoles.map((role) => {
      const job = (name: string) =>
        `arn:aws:transcribe:${plan.region}:${plan.account}:transcription-job/${name}`;
      const prefix = transcribeJobPrefix(plan);
      return {
        label: `data-access role ${role.logicalName}`,
        role,
        service: TRANSCRIBE_SERVICE,
        source: from(job(`${prefix}vm-rehearsal-run-1`)),
        foreignArn: job("another-stage-vm-rehearsal-run-1"),
      };
    }),
  ];
}

/** The stage's Transcribe job name prefix, as its functions are told it (stage-config.ts). */
function transcribeJobPrefix(plan: StagePlan): string {
  const prefix = plan.functions.find((fn) => fn.environment.VOXTRAIL_TRANSCRIBE_JOB_PREFIX)?.environment
    .VOXTRAIL_TRANSCRIBE_JOB_PREFIX;
  if (!prefix) throw new Error("the stage deploys a data-access role but no function names its job prefix");
  return prefix;
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
      const { role, service, source, foreignArn } = assumption;
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
          {
            from: { account: source.account, arn: foreignArn ?? `${source.arn}-another` },
            condition: "aws:SourceArn",
          },
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
