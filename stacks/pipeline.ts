import { FUNCTION_ENVIRONMENT, transcriptionModeOf, VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";
import { deployWorkflow } from "./deploy-workflow";
import type { FunctionSettings } from "./function-settings";
import { voicemailStateMachinePermissions } from "./permissions";

/**
 * The voicemail pipeline: the voicemail workflow as stacks/deploy-workflow.ts deploys it (one
 * Lambda function per stage handler, the state machine the workflow package builds, the same
 * definition the local runtime runs, with Transcribe as an Amazon Transcribe job when the stage
 * chose `amazon-transcribe`, under its fixed name `<app>-<stage>-voicemail`, which
 * Ingest's permission to describe its executions is built from and the batch workflow starts,
 * and the EventBridge rule that starts it when a voicemail lands), and the bus its outcome events
 * go to, which its functions are told of.
 *
 * @example
 * const { stateMachine, outcomeBus, functions } = pipeline({ bucket, settings });
 */
export function pipeline({ bucket, settings }: { bucket: sst.aws.Bucket; settings: FunctionSettings }) {
  const outcomeBus = new aws.cloudwatch.EventBus("Outcomes", { name: `${$app.name}-${$app.stage}-outcomes` });
  const { stateMachine, functions } = deployWorkflow(VOICEMAIL_WORKFLOW, {
    ids: { stateMachine: "Voicemail", rule: "VoicemailArrived", target: "StartVoicemail" },
    bucket,
    settings,
    functions: {
      prefix: "Stage",
      outcomeBusArn: outcomeBus.arn,
      environment: { [FUNCTION_ENVIRONMENT.eventBus]: outcomeBus.name },
    },
    // Transcribe runs in its function, or as an Amazon Transcribe job the state machine starts,
    // polls (as its own role) and reads, as the stage's providers say.
    definition: ({ functionArns }) =>
      settings.selection.apply((selection) =>
        VOICEMAIL_WORKFLOW.definition(functionArns, transcriptionModeOf(selection)),
      ),
    statements: (target) =>
      settings.selection.apply((selection) =>
        voicemailStateMachinePermissions({ ...target, transcribeJobPrefix: selection.transcribeJobPrefix }),
      ),
  });
  return { stateMachine, outcomeBus, functions };
}
