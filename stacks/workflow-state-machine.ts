import type { EventPattern } from "@voxtrail/workflow";
import { type ArnScope, type IamStatement, LOG_DELIVERY_STATEMENT, policyDocument } from "./permissions";
import { ruleTrustPolicy, stateMachineTrustPolicy } from "./trust-policies";

/**
 * A state machine deploying a definition the workflow package built, under a fixed name (so roles
 * can name it without referring to it), run by its own role with exactly `statements` plus log
 * delivery, which only Step Functions may assume, and only for this state machine
 * (`stateMachineTrustPolicy`), and logging errors to its own log group without execution data: state payloads are
 * pointers only, but logs are a boundary too, and errors and transitions are enough to operate on.
 * The log group is under `/aws/vendedlogs/`, where CloudWatch Logs does not need a resource policy
 * per log group.
 *
 * @example
 * const machine = workflowStateMachine("Voicemail", { name: "voxtrail-dev-voicemail", scope, definition, statements });
 */
export function workflowStateMachine(
  id: string,
  args: {
    name: string;
    scope: $util.Output<ArnScope>;
    definition: $util.Input<string>;
    statements: $util.Input<IamStatement[]>;
  },
): aws.sfn.StateMachine {
  const role = new aws.iam.Role(`${id}StateMachineRole`, {
    assumeRolePolicy: args.scope.apply((scope) => JSON.stringify(stateMachineTrustPolicy(scope, args.name))),
    inlinePolicies: [
      {
        name: "run-workflow",
        policy: $util
          .output(args.statements)
          .apply((statements) => JSON.stringify(policyDocument(statements))),
      },
      { name: "deliver-execution-logs", policy: JSON.stringify(policyDocument([LOG_DELIVERY_STATEMENT])) },
    ],
  });
  const logs = new aws.cloudwatch.LogGroup(`${id}ExecutionLogs`, {
    name: `/aws/vendedlogs/states/${args.name}`,
    retentionInDays: 30,
  });
  return new aws.sfn.StateMachine(id, {
    name: args.name,
    roleArn: role.arn,
    definition: args.definition,
    loggingConfiguration: {
      level: "ERROR",
      includeExecutionData: false,
      logDestination: $interpolate`${logs.arn}:*`,
    },
  });
}

/**
 * Starts `stateMachine` with each S3 event that matches `pattern` (a pattern the workflow package
 * builds): an EventBridge rule on the default bus, and a target whose role may only start
 * executions of that state machine, and which only EventBridge may assume, and only for this rule
 * (`ruleTrustPolicy`). The rule is named `id`, its role `<id>Role`, the target `target`.
 *
 * @example
 * startOnUpload("VoicemailArrived", "StartVoicemail", { pattern: bucket.name.apply(voicemailRulePattern), scope, stateMachine });
 */
export function startOnUpload(
  id: string,
  target: string,
  args: {
    pattern: $util.Output<EventPattern>;
    scope: $util.Output<ArnScope>;
    stateMachine: aws.sfn.StateMachine;
  },
): aws.cloudwatch.EventRule {
  const rule = new aws.cloudwatch.EventRule(id, {
    eventPattern: args.pattern.apply((pattern) => JSON.stringify(pattern)),
  });
  const role = new aws.iam.Role(`${id}Role`, {
    assumeRolePolicy: $util
      .all([args.scope, rule.arn])
      .apply(([scope, ruleArn]) => JSON.stringify(ruleTrustPolicy(scope.account, ruleArn))),
    inlinePolicies: [
      {
        name: "start-execution",
        policy: $jsonStringify({
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Action: "states:StartExecution", Resource: args.stateMachine.arn }],
        }),
      },
    ],
  });
  new aws.cloudwatch.EventTarget(target, { rule: rule.name, arn: args.stateMachine.arn, roleArn: role.arn });
  return rule;
}
