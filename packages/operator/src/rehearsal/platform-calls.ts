import type { CallRecord } from "./authorizing-proxy";
import { logDelivery } from "./log-delivery";
import type { PolicyEvaluator } from "./policy-evaluator";
import { checkTrust } from "./role-trust";
import type { StagePlan } from "./stage-plan";

/**
 * What AWS itself asks of IAM with the stage's roles, besides the calls their principals make, as
 * calls the rehearsal records: each service assuming its principal's role (role-trust.ts), refused
 * when the trust policy does not let it in or lets in more than it must; and Lambda writing each
 * function's logs as the function's role (log-delivery.ts). A rehearsal fails unless every one is
 * allowed.
 *
 * @example
 * const calls = await platformCalls(plan, evaluator);
 * calls.filter((call) => !call.allowed); // [] for a sound stage
 */
export async function platformCalls(plan: StagePlan, evaluator: PolicyEvaluator): Promise<CallRecord[]> {
  const trust = (await checkTrust(plan, evaluator)).map(({ assumption, decision, problems }): CallRecord => {
    const refusals = [...(decision.allowed ? [] : [decision.refusal ?? "denied"]), ...problems];
    return {
      principal: assumption.service,
      service: "sts",
      operation: `AssumeRole for ${assumption.label}`,
      allowed: refusals.length === 0,
      decisions: [decision],
      ...(refusals.length > 0 ? { refusal: refusals.join("; ") } : {}),
    };
  });
  const logs = await Promise.all(
    plan.functions.map(async (fn): Promise<CallRecord> => {
      const decisions = await logDelivery(fn, plan, evaluator);
      const refused = decisions.find((d) => !d.allowed);
      return {
        principal: "lambda.amazonaws.com",
        service: "logs",
        operation: `log delivery for function ${fn.component} (${fn.logGroup})`,
        allowed: !refused,
        decisions,
        ...(refused ? { refusal: `${refused.action}: ${refused.refusal ?? "denied"}` } : {}),
      };
    }),
  );
  return [...trust, ...logs];
}
