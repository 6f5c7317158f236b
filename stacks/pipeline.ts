import {
  buildVoicemailDefinition,
  FUNCTION_SIZES,
  STAGE_FUNCTIONS,
  type StageFunction,
  voicemailRulePattern,
} from "../packages/workflow/src";
import { type FunctionSettings, stageFunction } from "./function-settings";
import { stagePermissions, stateMachineNames } from "./permissions";
import type { StageConfig } from "./stage-config";
import { startOnUpload, workflowStateMachine } from "./workflow-state-machine";

/** The file name of each stage function's Lambda entry point under packages/functions/src/lambda/. */
const ENTRY_FILES: Record<StageFunction, string> = {
  ingest: "ingest",
  transcribe: "transcribe",
  reason: "reason",
  synthesize: "synthesize",
  finalize: "finalize",
  recordFailure: "record-failure",
};

/**
 * The voicemail pipeline: one Lambda function per stage handler, the state machine built by the
 * workflow package (the same definition the local runtime runs) under its fixed name
 * (`<app>-<stage>-voicemail`, which Ingest's permission to describe its executions is built from,
 * and the batch workflow starts), the EventBridge rule that starts it when a voicemail lands, and
 * the bus its outcome events go to. The functions' providers and boundary policy come from the
 * stage's configuration (stacks/function-settings.ts), their permissions from stacks/permissions.ts.
 *
 * @example
 * const { stateMachine, functions } = pipeline({ bucket, config, settings });
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
  const names = stateMachineNames($app.name, $app.stage);
  const configured = config.providers;
  const callsCartesia: Record<StageFunction, boolean> = {
    ingest: false,
    transcribe: configured.transcriber === "cartesia-ink",
    reason: false,
    synthesize: configured.synthesizer === "cartesia-api",
    finalize: false,
    recordFailure: false,
  };
  const functions = Object.fromEntries(
    STAGE_FUNCTIONS.map((fn) => [
      fn,
      stageFunction(`Stage${fn[0]?.toUpperCase()}${fn.slice(1)}`, settings, {
        entry: ENTRY_FILES[fn],
        size: FUNCTION_SIZES[fn],
        callsCartesia: callsCartesia[fn],
        environment: { VOXTRAIL_EVENT_BUS: outcomeBus.name },
        permissions: $util
          .all([settings.scope, settings.selection, bucket.name, outcomeBus.arn])
          .apply(([scope, selection, bucketName, outcomeBusArn]) =>
            stagePermissions(fn, {
              ...scope,
              bucket: bucketName,
              outcomeBusArn,
              voicemailStateMachineName: names.voicemail,
              sonicEndpoint: selection.sonicEndpoint,
              bedrockModelId: selection.bedrockModelId,
              recordsUri: selection.recordsUri,
            }),
          ),
      }),
    ]),
  ) as Record<StageFunction, sst.aws.Function>;
  const functionArns = $util.all(Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [fn, functions[fn].arn])));

  const stateMachine = workflowStateMachine("Voicemail", {
    name: names.voicemail,
    definition: functionArns.apply((arns) =>
      JSON.stringify(buildVoicemailDefinition({ functionArns: arns as Record<StageFunction, string> })),
    ),
    statements: functionArns.apply((arns) => [
      { actions: ["lambda:InvokeFunction"], resources: STAGE_FUNCTIONS.map((fn) => arns[fn] as string) },
    ]),
  });
  startOnUpload("VoicemailArrived", "StartVoicemail", {
    pattern: bucket.name.apply(voicemailRulePattern),
    stateMachine,
  });
  return { stateMachine, outcomeBus, functions };
}
