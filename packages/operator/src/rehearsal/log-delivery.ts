import type { Decision, PolicyEvaluator } from "./policy-evaluator";
import type { FunctionPlan, StagePlan } from "./stage-plan";

/** A log stream as Lambda names an execution environment's (`<date>/[<version>]<id>`). */
const LOG_STREAM = "2026/01/01/[$LATEST]0123456789abcdef0123456789abcdef";

/**
 * What Lambda asks of IAM, as the function's role, to keep its output: a log stream created in the
 * function's log group and its events put there (`logs:CreateLogStream`, `logs:PutLogEvents`, both
 * on the stream: Service Authorization Reference, CloudWatch Logs). Lambda makes these calls
 * itself, outside the function's code ("Using source function ARN to control function access
 * behavior", Lambda developer guide), so the rehearsal, whose functions print to their process's
 * output, does not see them: it asks for them here instead, against the role's policies (its
 * inline ones and `AWSLambdaBasicExecutionRole`, as sst attaches it).
 *
 * @example
 * await logDelivery(plan.functions[0], plan, evaluator); // two decisions, both allowed by AWSLambdaBasicExecutionRole
 */
export async function logDelivery(
  fn: FunctionPlan,
  plan: Pick<StagePlan, "region" | "account">,
  evaluator: PolicyEvaluator,
): Promise<Decision[]> {
  const stream = `arn:aws:logs:${plan.region}:${plan.account}:log-group:${fn.logGroup}:log-stream:${LOG_STREAM}`;
  return Promise.all(
    ["logs:CreateLogStream", "logs:PutLogEvents"].map((action) =>
      evaluator.authorize({ role: fn.role, action, resource: stream }),
    ),
  );
}
