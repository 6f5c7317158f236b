import { TRANSCRIPTION_ENDED_INPUT, transcriptionEndedPattern } from "@voxtrail/workflow";
import type { FunctionSettings } from "./function-settings";
import { policyDocument, transcribeDataAccessPermissions } from "./permissions";
import { transcribeDataAccessRoleName, transcribeJobPrefix } from "./stage-config";
import { transcribeTrustPolicy } from "./trust-policies";

/**
 * What a stage that transcribes with Amazon Transcribe adds to its voicemail workflow:
 *
 * - the role Transcribe assumes for queued jobs (`<app>-<stage>-transcribe-data-access`, its name
 *   fixed so the functions know its ARN: stage-config.ts), trusted by Transcribe for the stage's
 *   own jobs alone, allowed to read the media and write the output of any job and nothing else;
 * - the rule on Transcribe's "Transcribe Job State Change" events for the stage's jobs that ended,
 *   whose target is the Transcribe function's resume step (its input transformer passes the job's
 *   name and status only), and Lambda's permission for that rule alone to invoke it
 *   ("Using resource-based policies for Amazon EventBridge", Lambda permissions: principal
 *   `events.amazonaws.com`, source the rule's ARN). EventBridge retries a failed delivery for up to
 *   24 hours (its default retry policy, written out here); a job whose event is lost anyway is
 *   found by the workflow's own look at the end of each wait (transcription-job-states.ts).
 *
 * @example
 * transcriptionEvents({ bucket, settings, transcribe: functions.transcribe });
 */
export function transcriptionEvents({
  bucket,
  settings,
  transcribe,
}: {
  bucket: sst.aws.Bucket;
  settings: FunctionSettings;
  transcribe: sst.aws.Function;
}) {
  const prefix = transcribeJobPrefix($app.name, $app.stage);
  const dataAccessRole = new aws.iam.Role("TranscribeDataAccess", {
    name: transcribeDataAccessRoleName($app.name, $app.stage),
    assumeRolePolicy: settings.scope.apply((scope) => JSON.stringify(transcribeTrustPolicy(scope, prefix))),
    inlinePolicies: [
      {
        name: "queued-jobs",
        policy: $util.all([settings.scope, bucket.name]).apply(([scope, bucketName]) =>
          JSON.stringify(
            policyDocument(
              transcribeDataAccessPermissions({
                partition: scope.partition,
                bucket: bucketName,
                redacts: settings.redacts,
              }),
            ),
          ),
        ),
      },
    ],
  });
  const rule = new aws.cloudwatch.EventRule("TranscriptionEnded", {
    eventPattern: JSON.stringify(transcriptionEndedPattern(prefix)),
  });
  new aws.cloudwatch.EventTarget("ResumeTranscription", {
    rule: rule.name,
    arn: transcribe.arn,
    inputTransformer: {
      inputPaths: { ...TRANSCRIPTION_ENDED_INPUT.inputPaths },
      inputTemplate: TRANSCRIPTION_ENDED_INPUT.inputTemplate,
    },
    retryPolicy: { maximumEventAgeInSeconds: 86_400, maximumRetryAttempts: 185 },
  });
  new aws.lambda.Permission("TranscriptionEndedInvokes", {
    action: "lambda:InvokeFunction",
    function: transcribe.name,
    principal: "events.amazonaws.com",
    sourceArn: rule.arn,
  });
  return { dataAccessRole, rule };
}
