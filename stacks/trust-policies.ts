import { type ArnScope, TRANSCRIBE_SERVICE } from "./permissions";

/**
 * The schedule group sst's `CronV2` puts its schedule in (it sets no `groupName`): EventBridge
 * Scheduler's `default` group.
 */
export const DEFAULT_SCHEDULE_GROUP = "default";

/**
 * A trust policy that lets only `service` assume the role, and only on behalf of `source` in the
 * stage's own account: `aws:SourceAccount` and `aws:SourceArn`, as AWS recommends against the
 * cross-service confused deputy (a service made to act with this role for another account's, or
 * another resource's, request).
 */
function serviceTrustPolicy(
  service: string,
  account: string,
  source: string,
  match: "ArnEquals" | "ArnLike" = "ArnEquals",
) {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Effect: "Allow",
        Principal: { Service: service },
        Action: "sts:AssumeRole",
        Condition: {
          StringEquals: { "aws:SourceAccount": account },
          [match]: { "aws:SourceArn": source },
        },
      },
    ],
  };
}

/**
 * The trust policy of a function's execution role: Lambda alone, with no condition (Lambda's guide,
 * "Defining Lambda function permissions with an execution role", names only the service principal:
 * https://docs.aws.amazon.com/lambda/latest/dg/lambda-intro-execution-role.html). sst 4 would write
 * its `sst dev` trust policy on deploy too, which also trusts the account's root: its role asks
 * `!dev` of an Output, which is never false (.sst/platform/src/components/aws/function.ts).
 *
 * @example
 * new sst.aws.Function(name, { ..., transform: { role: { assumeRolePolicy: JSON.stringify(lambdaTrustPolicy()) } } });
 */
export function lambdaTrustPolicy() {
  return {
    Version: "2012-10-17",
    Statement: [
      { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
    ],
  };
}

/**
 * The trust policy of a state machine's role: Step Functions, for that state machine only (AWS Step
 * Functions guide, "Creating an IAM role for your state machine", "Prevent cross-service confused
 * deputy issue": https://docs.aws.amazon.com/step-functions/latest/dg/procedure-create-iam-role.html).
 * The guide's example allows any state machine of the account and region (`stateMachine:*`); the
 * stage's names are fixed, so the role names its own.
 *
 * @example
 * stateMachineTrustPolicy(scope, "voxtrail-dev-voicemail"); // Service states.amazonaws.com, aws:SourceArn the state machine's ARN
 */
export function stateMachineTrustPolicy(scope: ArnScope, stateMachineName: string) {
  return serviceTrustPolicy(
    "states.amazonaws.com",
    scope.account,
    `arn:${scope.partition}:states:${scope.region}:${scope.account}:stateMachine:${stateMachineName}`,
  );
}

/**
 * The trust policy of a rule target's role: EventBridge, for that rule only ("Cross-service confused
 * deputy prevention in Amazon EventBridge": for event bus rule targets, `aws:SourceArn` is the rule's
 * ARN; https://docs.aws.amazon.com/eventbridge/latest/userguide/cross-service-confused-deputy-prevention.html).
 *
 * @example
 * ruleTrustPolicy("123456789012", "arn:aws:events:us-east-1:123456789012:rule/VoicemailArrived-1a2b3c");
 */
export function ruleTrustPolicy(account: string, ruleArn: string) {
  return serviceTrustPolicy("events.amazonaws.com", account, ruleArn);
}

/**
 * The trust policy of a schedule's role: EventBridge Scheduler, for the schedules of the
 * {@link DEFAULT_SCHEDULE_GROUP} group ("Confused deputy prevention in EventBridge Scheduler": `aws:SourceArn` is the schedule
 * group's ARN, never a schedule's; https://docs.aws.amazon.com/scheduler/latest/UserGuide/cross-service-confused-deputy-prevention.html).
 *
 * @example
 * scheduleTrustPolicy(scope); // aws:SourceArn arn:aws:scheduler:<region>:<account>:schedule-group/default
 */
export function scheduleTrustPolicy(scope: ArnScope) {
  return serviceTrustPolicy(
    "scheduler.amazonaws.com",
    scope.account,
    `arn:${scope.partition}:scheduler:${scope.region}:${scope.account}:schedule-group/${DEFAULT_SCHEDULE_GROUP}`,
  );
}

/**
 * The trust policy of the role Amazon Transcribe assumes for a stage's queued jobs: Transcribe,
 * for that stage's own jobs only (`aws:SourceArn` like the jobs of its name prefix; "Cross-service
 * confused deputy prevention" in the Amazon Transcribe developer guide,
 * https://docs.aws.amazon.com/transcribe/latest/dg/cross-service-confused-deputy-prevention.html).
 *
 * @example
 * transcribeTrustPolicy(scope, "voxtrail-production-"); // aws:SourceArn like arn:aws:transcribe:<region>:<account>:transcription-job/voxtrail-production-*
 */
export function transcribeTrustPolicy(scope: ArnScope, jobNamePrefix: string) {
  return serviceTrustPolicy(
    TRANSCRIBE_SERVICE,
    scope.account,
    `arn:${scope.partition}:transcribe:${scope.region}:${scope.account}:transcription-job/${jobNamePrefix}*`,
    "ArnLike",
  );
}
