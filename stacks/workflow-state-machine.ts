import type { EventPattern } from "@voxtrail/workflow";
import { type IamStatement, LOG_DELIVERY_STATEMENT, policyDocument } from "./permissions";

/**
 * A state machine deploying a definition the workflow package built, under a fixed name (so roles
 * can name it without referring to it), run by its own role with exactly `statements` plus log
 * delivery, and logging errors to its own log group without execution data: state payloads are
 * pointers only, but logs are a boundary too, and errors and transitions are enough to operate on.
 * The log group is under `/aws/vendedlogs/`, where CloudWatch Logs does not need a resource policy
 * per log group.
 *
 * @example
 * const machine = workflowStateMachine("Voicemail", { name: "voxtrail-dev-voicemail", definition, statements });
 */
export function workflowStateMachine(
  id: string,
  args: { name: string; definition: $util.Input<string>; statements: $util.Input<IamStatement[]> },
): aws.sfn.StateMachine {
  const role = new aws.iam.Role(`${id}StateMachineRole`, {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: "states.amazonaws.com" }),
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
 * executions of that state machine. The rule is named `id`, its role `<id>Role`, the target `target`.
 *
 * @example
 * startOnUpload("VoicemailArrived", "StartVoicemail", { pattern: bucket.name.apply(voicemailRulePattern), stateMachine });
 */
export function startOnUpload(
  id: string,
  target: string,
  args: { pattern: $util.Output<EventPattern>; stateMachine: aws.sfn.StateMachine },
): aws.cloudwatch.EventRule {
  const rule = new aws.cloudwatch.EventRule(id, {
    eventPattern: args.pattern.apply((pattern) => JSON.stringify(pattern)),
  });
  const role = new aws.iam.Role(`${id}Role`, {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: "events.amazonaws.com" }),
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
