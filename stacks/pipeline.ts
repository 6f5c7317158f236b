import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CARTESIA_SECRET } from "../packages/functions/src/lambda/linked-secret";
import { PROVIDER_ENVIRONMENT, selectionFromEnvironment } from "../packages/providers/src/selection";
import {
  buildVoicemailDefinition,
  STAGE_FUNCTIONS,
  type StageFunction,
  voicemailRulePattern,
} from "../packages/workflow/src";
import { stagePermissions } from "./permissions";

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
 * stage has its own, `dev.json` otherwise. Deployed into the functions' environment. Read from
 * the project root (`$cli.paths.root`): the CLI runs a bundle of this file from `.sst/platform/`,
 * so `import.meta.url` does not point here.
 */
function boundaryPolicyOf(stage: string): string {
  const directory = join($cli.paths.root, "config/boundary-policy");
  const own = join(directory, `${stage}.json`);
  return JSON.stringify(
    JSON.parse(readFileSync(existsSync(own) ? own : join(directory, "dev.json"), "utf8")),
  );
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

  const partition = aws.getPartitionOutput().partition;
  const region = aws.getRegionOutput().region;
  const account = aws.getCallerIdentityOutput().accountId;
  const configured = selectionFromEnvironment(process.env);
  // The Cartesia key exists only in stages that chose a Cartesia provider, and is linked only to
  // the function that calls Cartesia (read at first use: packages/functions/src/lambda/linked-secret.ts).
  const callsCartesia: Record<StageFunction, boolean> = {
    ingest: false,
    transcribe: configured.transcriber === "cartesia-ink",
    reason: false,
    synthesize: configured.synthesizer === "cartesia-api",
    finalize: false,
    recordFailure: false,
  };
  const cartesiaApiKey = Object.values(callsCartesia).some(Boolean)
    ? new sst.Secret(CARTESIA_SECRET)
    : undefined;
  const functions = Object.fromEntries(
    STAGE_FUNCTIONS.map((fn) => [
      fn,
      new sst.aws.Function(`Stage${fn[0]?.toUpperCase()}${fn.slice(1)}`, {
        handler: `packages/functions/src/lambda/${ENTRY_FILES[fn]}.handler`,
        runtime: "nodejs22.x",
        ...FUNCTION_SIZES[fn],
        link: cartesiaApiKey && callsCartesia[fn] ? [cartesiaApiKey] : [],
        environment: {
          ...providerEnvironment(),
          VOXTRAIL_STAGE: $app.stage,
          VOXTRAIL_BOUNDARY_POLICY: boundaryPolicyOf($app.stage),
          VOXTRAIL_BUCKET: bucket.name,
          VOXTRAIL_EVENT_BUS: outcomeBus.name,
          POWERTOOLS_SERVICE_NAME: "voxtrail",
        },
        // Exactly what the stage calls (stacks/permissions.ts), instead of `link`'s whole-bucket access.
        permissions: $util
          .all([partition, region, account, bucket.name, outcomeBus.arn])
          .apply(([partition, region, account, bucketName, outcomeBusArn]) =>
            stagePermissions(fn, {
              partition,
              region,
              account,
              bucket: bucketName,
              outcomeBusArn,
              sonicEndpoint: configured.sonicEndpoint,
              bedrockModelId: configured.bedrockModelId,
              recordsUri: configured.recordsUri,
            }),
          ),
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
