import type { CallRecord } from "./authorizing-proxy";
import { type Decision, PolicyEvaluator } from "./policy-evaluator";
import type { StatementRef } from "./rehearsal";
import { type RolePlan, rolesOf, type StagePlan } from "./stage-plan";

/** One statement of a role's policy, as the policy document holds it. */
export type Statement = Record<string, unknown>;

/** One action, or one resource, a statement names. */
export interface Grant {
  statement: StatementRef;
  kind: "action" | "resource";
  value: string;
}

/** A grant, with the recorded requests its statement allowed that are refused without it. */
export interface GrantReplay extends Grant {
  refused: Decision[];
}

/**
 * Replays what a rehearsal recorded against the stage's policies with one statement changed: every
 * request that statement allowed (each distinct role, action, resource and condition keys once) is
 * evaluated again, as IAM would, with `change(statement)` in its place, and the decisions that are
 * then refused are returned. No run is repeated: the requests are the ones the successful run made.
 * That is enough to show a grant is needed, whatever the workflow would do with the refusal: the
 * first refused request is one the run makes with or without the grant (every request before it is
 * decided the same), and a run with a refused request fails ({@link RehearsalReport.ok}).
 *
 * @example
 * const refused = await replayWith(plan, report.calls, ref, (s) => ({ ...s, Action: ["s3:PutObject"] }));
 */
export async function replayWith(
  plan: StagePlan,
  calls: readonly CallRecord[],
  ref: StatementRef,
  change: (statement: Statement) => Statement,
): Promise<Decision[]> {
  const role = rolesOf(plan).get(ref.role);
  const policy = role?.policies.find((p) => p.name === ref.policy);
  const statement = policy?.document.Statement[ref.index - 1];
  if (!role || !policy || !statement) throw new Error(`no statement ${JSON.stringify(ref)}`);
  const changed: RolePlan = {
    ...role,
    policies: role.policies.map((p) =>
      p === policy
        ? {
            ...p,
            document: {
              ...p.document,
              Statement: p.document.Statement.map((s, i) => (i === ref.index - 1 ? change(s) : s)),
            },
          }
        : p,
    ),
  };
  const evaluator = evaluatorOf(plan);
  const refused: Decision[] = [];
  for (const decision of allowedBy(calls, ref)) {
    const replayed = await evaluator.authorize({
      role: changed,
      action: decision.action,
      resource: decision.resource,
      context: decision.context,
    });
    if (!replayed.allowed) refused.push(replayed);
  }
  return refused;
}

/**
 * Each action and each resource of every statement that allowed a request in `calls`, with the
 * requests that are refused once it alone is taken out of the statement ({@link replayWith}). A
 * statement's only action or only resource is left out: taking it away takes the whole statement,
 * which a run without the statement shows (test/rehearsal/statement-drop.ts). A grant whose
 * `refused` is empty is one no request of the run needed.
 *
 * @example
 * const unneeded = (await replayEachGrant(plan, report.calls)).filter((g) => g.refused.length === 0);
 */
export async function replayEachGrant(plan: StagePlan, calls: readonly CallRecord[]): Promise<GrantReplay[]> {
  const roles = rolesOf(plan);
  const exercised = new Map<string, StatementRef>();
  for (const call of calls) {
    for (const decision of call.decisions) {
      if (!decision.statement || !roles.has(decision.role)) continue;
      const ref = { role: decision.role, policy: decision.statement.policy, index: decision.statement.index };
      exercised.set(`${ref.role} ${ref.policy} #${ref.index}`, ref);
    }
  }
  const replays: GrantReplay[] = [];
  for (const ref of exercised.values()) {
    // The stage's own policies only: an AWS managed policy or a trust policy is not ours to trim
    // (the trust policies are checked as a whole, statement-drop.ts and role-trust.test.ts).
    const policy = roles.get(ref.role)?.policies.find((p) => p.name === ref.policy);
    if (!policy) continue;
    const statement = policy.document.Statement[ref.index - 1] as Statement;
    for (const kind of ["action", "resource"] as const) {
      const field = kind === "action" ? "Action" : "Resource";
      const values = [statement[field]].flat() as string[];
      if (values.length < 2) continue;
      for (const value of values) {
        const refused = await replayWith(plan, calls, ref, (s) => ({
          ...s,
          [field]: values.filter((v) => v !== value),
        }));
        replays.push({ statement: ref, kind, value, refused });
      }
    }
  }
  return replays;
}

/** The distinct requests `ref` allowed in `calls`. */
function allowedBy(calls: readonly CallRecord[], ref: StatementRef): Decision[] {
  const requests = new Map<string, Decision>();
  for (const call of calls) {
    for (const decision of call.decisions) {
      const by = decision.statement;
      if (decision.role !== ref.role || by?.policy !== ref.policy || by.index !== ref.index) continue;
      requests.set(JSON.stringify([decision.action, decision.resource, decision.context]), decision);
    }
  }
  return [...requests.values()];
}

/** IAM for the whole stage, as the rehearsal evaluates it: the roles' policies, the bucket's and the keys'. */
function evaluatorOf(plan: StagePlan): PolicyEvaluator {
  return new PolicyEvaluator({
    account: plan.account,
    bucket: plan.bucket,
    bucketPolicy: plan.bucketPolicy,
    keyPolicies: Object.fromEntries(plan.keys.map((key) => [key.arn, key.policy])),
  });
}
