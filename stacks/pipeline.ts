import { readFileSync } from "node:fs";
import { PROVIDER_ENVIRONMENT } from "../packages/providers/src/selection";
import {
  buildVoicemailDefinition,
  STAGE_FUNCTIONS,
  type StageFunction,
  voicemailRulePattern,
} from "../packages/workflow/src";

/** Memory (MB) and timeout (s) per stage function; synthesis and transcription move audio. */
const FUNCTION_SIZES: Record<StageFunction, { memory: `${number} MB`; timeout: `${number} seconds` }> = {
  ingest: { memory: "1024 MB", timeout: "60 seconds" },
  transcribe: { memory: "1024 MB", timeout: "300 seconds" },
  reason: { memory: "512 MB", timeout: "60 seconds" },
  synthesize: { memory: "1024 MB", timeout: "300 seconds" },
  finalize: { memory: "256 MB", timeout: "30 seconds" },
  recordFailure: { memory: "256 MB", timeout: "30 seconds" },
};

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
 * The stage's boundary policy, from the repository: `config/boundary-policy/<stage>.json` when the
 * stage has its own, `dev.json` otherwise. Deployed into the functions' environment.
 */
function boundaryPolicyOf(stage: string): string {
  const own = new URL(`../config/boundary-policy/${stage}.json`, import.meta.url);
  const fallback = new URL("../config/boundary-policy/dev.json", import.meta.url);
  try {
    return JSON.stringify(JSON.parse(readFileSync(own, "utf8")));
  } catch {
    return JSON.stringify(JSON.parse(readFileSync(fallback, "utf8")));
  }
}

/** Provider choices (VOXTRAIL_TRANSCRIBER, ...) set in the deploying shell, passed on to the functions. */
function providerEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.values(PROVIDER_ENVIRONMENT)
      .filter((name) => name !== PROVIDER_ENVIRONMENT.cartesiaApiKey && process.env[name])
      .map((name) => [name, process.env[name] as string]),
  );
}

/**
 * The voicemail pipeline: one Lambda function per stage handler, the state machine built by the
 * workflow package (the same definition the local runtime runs), the EventBridge rule that starts
 * it when a voicemail lands, and the bus its outcome events go to.
 */
export function pipeline({ bucket }: { bucket: sst.aws.Bucket }) {
  const outcomeBus = new aws.cloudwatch.EventBus("Outcomes", { name: `${$app.name}-${$app.stage}-outcomes` });

  const functions = Object.fromEntries(
    STAGE_FUNCTIONS.map((fn) => [
      fn,
      new sst.aws.Function(`Stage${fn[0]?.toUpperCase()}${fn.slice(1)}`, {
        handler: `packages/functions/src/lambda/${ENTRY_FILES[fn]}.handler`,
        runtime: "nodejs22.x",
        ...FUNCTION_SIZES[fn],
        link: [bucket],
        environment: {
          ...providerEnvironment(),
          VOXTRAIL_STAGE: $app.stage,
          VOXTRAIL_BOUNDARY_POLICY: boundaryPolicyOf($app.stage),
          VOXTRAIL_BUCKET: bucket.name,
          VOXTRAIL_EVENT_BUS: outcomeBus.name,
          POWERTOOLS_SERVICE_NAME: "voxtrail",
        },
        permissions: [{ actions: ["events:PutEvents"], resources: [outcomeBus.arn] }],
      }),
    ]),
  ) as Record<StageFunction, sst.aws.Function>;
  const functionArns = Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [fn, functions[fn].arn]));

  const stateMachineRole = new aws.iam.Role("VoicemailStateMachineRole", {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: "states.amazonaws.com" }),
    inlinePolicies: [
      {
        name: "invoke-stage-functions",
        policy: $jsonStringify({
          Version: "2012-10-17",
          Statement: [
            { Effect: "Allow", Action: "lambda:InvokeFunction", Resource: Object.values(functionArns) },
          ],
        }),
      },
    ],
  });
  const executionLogs = new aws.cloudwatch.LogGroup("VoicemailExecutionLogs", { retentionInDays: 30 });
  const stateMachine = new aws.sfn.StateMachine("Voicemail", {
    roleArn: stateMachineRole.arn,
    definition: $util
      .all(functionArns)
      .apply((arns) =>
        JSON.stringify(buildVoicemailDefinition({ functionArns: arns as Record<StageFunction, string> })),
      ),
    // Execution data would put state payloads in the logs; they are pointers only, but logs are
    // a boundary too: errors and transitions are enough to operate on.
    loggingConfiguration: {
      level: "ERROR",
      includeExecutionData: false,
      logDestination: $interpolate`${executionLogs.arn}:*`,
    },
  });

  const rule = new aws.cloudwatch.EventRule("VoicemailArrived", {
    eventPattern: bucket.name.apply((name) => JSON.stringify(voicemailRulePattern(name))),
  });
  const ruleRole = new aws.iam.Role("VoicemailArrivedRole", {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: "events.amazonaws.com" }),
    inlinePolicies: [
      {
        name: "start-voicemail-execution",
        policy: $jsonStringify({
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Action: "states:StartExecution", Resource: stateMachine.arn }],
        }),
      },
    ],
  });
  new aws.cloudwatch.EventTarget("StartVoicemail", {
    rule: rule.name,
    arn: stateMachine.arn,
    roleArn: ruleRole.arn,
  });

  return { stateMachine, outcomeBus, functions };
}
