import { FUNCTION_ENVIRONMENT, transcriptionModeOf, VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";
import { deployWorkflow } from "./deploy-workflow";
import type { FunctionSettings } from "./function-settings";
import { voicemailStateMachinePermissions } from "./permissions";
import { type StageConfig, synthesisGates } from "./stage-config";
import { transcriptionEvents } from "./transcription-events";

/**
 * The voicemail pipeline: the voicemail workflow as stacks/deploy-workflow.ts deploys it (one
 * Lambda function per stage handler, the state machine the workflow package builds, the same
 * definition the local runtime runs, with Transcribe as an Amazon Transcribe job when the stage
 * chose `amazon-transcribe`, under its fixed name `<app>-<stage>-voicemail`, which
 * Ingest's permission to describe its executions is built from and the batch workflow starts,
 * and the EventBridge rule that starts it when a voicemail lands), the bus its outcome events
 * go to, which its functions are told of, and, with Amazon Transcribe, the role its queued jobs
 * run with and the rule that resumes the workflow when a job ends (stacks/transcription-events.ts).
 *
 * @example
 * const { stateMachine, outcomeBus, functions } = pipeline({ bucket, config, settings });
 */
export function pipeline({
  bucket,
  config,
  settings,
}: {
  bucket: sst.aws.Bucket;
  config: StageConfig;
  settings: FunctionSettings;
}) {
  const outcomeBus = new aws.cloudwatch.EventBus("Outcomes", { name: `${$app.name}-${$app.stage}-outcomes` });
  const { stateMachine, functions } = deployWorkflow(VOICEMAIL_WORKFLOW, {
    ids: { stateMachine: "Voicemail", rule: "VoicemailArrived", target: "StartVoicemail" },
    bucket,
    settings,
    functions: {
      prefix: "Stage",
      outcomeBusArn: outcomeBus.arn,
      environment: { [FUNCTION_ENVIRONMENT.eventBus]: outcomeBus.name },
      reservedConcurrency: { synthesize: synthesisGates(config)?.synthesize },
    },
    // Transcribe runs in its function, or as an Amazon Transcribe job the workflow starts, waits
    // for and reads, as the stage's providers say.
    definition: ({ functionArns }) =>
      VOICEMAIL_WORKFLOW.definition(functionArns, transcriptionModeOf(config.providers)),
    statements: (target) => voicemailStateMachinePermissions(target),
  });
  const transcription =
    transcriptionModeOf(config.providers) === "service-job"
      ? transcriptionEvents({ bucket, settings, transcribe: functions.transcribe })
      : undefined;
  return { stateMachine, outcomeBus, functions, transcription };
}
