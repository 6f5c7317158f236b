import { readFileSync } from "node:fs";
import { lambdaDependencies } from "@voxtrail/functions/lambda";
import { ATHENA_SYMLINKS_PREFIX, INDEX_COLUMNS, INDEX_TABLES } from "@voxtrail/lineage/edge-index";
import { evaluateStacks } from "@voxtrail/operator/rehearsal";
import { cloudSynthesizer } from "@voxtrail/providers";
import {
  BATCH_TIMEOUT_SECONDS,
  BATCH_WORKFLOW,
  buildPromptsDefinition,
  buildVoicemailBatchDefinition,
  buildVoicemailDefinition,
  type EventPattern,
  FUNCTION_TIMEOUT_MARGIN_SECONDS,
  PROMPT_FUNCTIONS,
  PROMPT_TIMEOUT_SECONDS,
  PROMPTS_WORKFLOW,
  type PromptFunction,
  promptsRulePattern,
  STAGE_FUNCTIONS,
  STAGE_TIMEOUT_SECONDS,
  type StageFunction,
  type StageResources,
  selectionFromEnvironment,
  stageParameterName,
  TRANSCRIPTION_ENDED_INPUT,
  TRANSCRIPTION_JOB_STATES,
  transcriptionEndedPattern,
  VOICEMAIL_WORKFLOW,
  voicemailBatchRulePattern,
  voicemailRulePattern,
  WAIT_FOR_TASK_TOKEN_LAMBDA,
} from "@voxtrail/workflow";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  LINEAGE_INDEX_COLUMNS,
  LINEAGE_INDEX_FIRST_DAY,
  lineageIndexDatabaseName,
  lineageIndexWorkgroupName,
} from "../../stacks/lineage-index-catalog";
import { type Evaluation, MOCK_ACCOUNT, MOCK_REGION, mockArn } from "../../stacks/mocks/evaluation";
import {
  accountKeyPolicy,
  DEPLOYED_FUNCTIONS,
  type DeployedFunction,
  type IamStatement,
  LINEAGE_ATHENA_PREFIX,
  LINEAGE_INDEX_TABLES,
  lineageIndexCompactorPermissions,
  lineageIndexReaderPermissions,
  lineageSignerPermissions,
  type PermissionTargets,
  policyDocument,
  stagePermissions,
} from "../../stacks/permissions";
import { stageSelection, synthesisGates } from "../../stacks/stage-config";
import {
  COMPONENT,
  functionArnOf,
  inlineStatements,
  lambdaOf,
  ofType,
  resource,
  roleStatements,
  variablesOf,
} from "./resources";
import {
  CARTESIA_SECRET_ENV,
  configEnvironment,
  PRODUCTION_ENV,
  repositoryConfig,
  subscribedProductionConfig,
  TEST_MODEL_PACKAGE_ARN,
} from "./stage-configs";

/** Each function's entry file under packages/functions/src/lambda/, as its workflow's descriptor names it. */
const ENTRY: Record<DeployedFunction, string> = {
  ...VOICEMAIL_WORKFLOW.entryFiles,
  ...PROMPTS_WORKFLOW.entryFiles,
  ...BATCH_WORKFLOW.entryFiles,
};
/**
 * The Task timeout of the state(s) invoking each function (the failure recorder's run under
 * Finalize's): the Lambda timeout is FUNCTION_TIMEOUT_MARGIN_SECONDS less, so the function's own
 * deadline fires before the state's.
 */
const TASK_TIMEOUT: Record<DeployedFunction, number> = {
  ingest: STAGE_TIMEOUT_SECONDS.Ingest,
  transcribe: STAGE_TIMEOUT_SECONDS.Transcribe,
  reason: STAGE_TIMEOUT_SECONDS.Reason,
  synthesize: STAGE_TIMEOUT_SECONDS.Synthesize,
  finalize: STAGE_TIMEOUT_SECONDS.Finalize,
  recordFailure: STAGE_TIMEOUT_SECONDS.Finalize,
  ...PROMPT_TIMEOUT_SECONDS,
  ...BATCH_TIMEOUT_SECONDS,
};
const MEMORY: Record<DeployedFunction, number> = {
  ingest: 1024,
  transcribe: 1024,
  reason: 512,
  synthesize: 1024,
  finalize: 256,
  recordFailure: 256,
  preparePrompts: 1024,
  synthesizePrompt: 1024,
  recordPromptFailure: 256,
  writePromptsReport: 1024,
  openBatch: 256,
};

/** Each state machine's name and ARN as a stage names it, and the rule that starts it. */
function workflowsOf(stage: string) {
  const machine = (suffix: string) => ({
    name: `voxtrail-${stage}-${suffix}`,
    arn: `arn:aws:states:${MOCK_REGION}:${MOCK_ACCOUNT}:stateMachine:voxtrail-${stage}-${suffix}`,
    executions: `arn:aws:states:${MOCK_REGION}:${MOCK_ACCOUNT}:execution:voxtrail-${stage}-${suffix}:*`,
    childExecutions: `arn:aws:states:${MOCK_REGION}:${MOCK_ACCOUNT}:execution:voxtrail-${stage}-${suffix}/*`,
  });
  return { voicemail: machine("voicemail"), batch: machine("voicemail-batch"), prompts: machine("prompts") };
}

/** What every state machine role may do besides its workflow: deliver its logs (only `*` is possible). */
const LOG_DELIVERY = {
  Effect: "Allow",
  Action: [
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
  ],
  Resource: ["*"],
};

/**
 * What a state machine with a Distributed Map may do to itself: start its own executions, and
 * describe and stop them and its map runs' child executions.
 */
function ownDistributedMap(machine: ReturnType<typeof workflowsOf>["batch"]) {
  return [
    { Effect: "Allow", Action: ["states:StartExecution"], Resource: [machine.arn] },
    {
      Effect: "Allow",
      Action: ["states:DescribeExecution", "states:StopExecution"],
      Resource: [machine.executions, machine.childExecutions],
    },
  ];
}

/** What a Distributed Map's ResultWriter calls on its prefix. */
const RESULT_WRITER = [
  "s3:PutObject",
  "s3:GetObject",
  "s3:ListMultipartUploadParts",
  "s3:AbortMultipartUpload",
];

/** The rules: each starts one state machine on S3 "Object Created" under its prefix. */
const RULES: Array<{
  rule: string;
  target: string;
  workflow: "voicemail" | "batch" | "prompts";
  prefix: string;
  pattern: (bucket: string) => EventPattern;
}> = [
  {
    rule: "VoicemailArrived",
    target: "StartVoicemail",
    workflow: "voicemail",
    prefix: "incoming/voicemail/",
    pattern: voicemailRulePattern,
  },
  {
    rule: "VoicemailBatchArrived",
    target: "StartVoicemailBatch",
    workflow: "batch",
    prefix: "incoming/batches/",
    pattern: voicemailBatchRulePattern,
  },
  {
    rule: "PromptsManifestArrived",
    target: "StartPrompts",
    workflow: "prompts",
    prefix: "incoming/prompts/",
    pattern: promptsRulePattern,
  },
];

const SAGEMAKER_TYPES = [
  "aws:sagemaker/model:Model",
  "aws:sagemaker/endpointConfiguration:EndpointConfiguration",
  "aws:sagemaker/endpoint:Endpoint",
  "aws:appautoscaling/target:Target",
  "aws:appautoscaling/policy:Policy",
];

function bucketOf(evaluation: Evaluation): string {
  return resource(evaluation, "aws:s3/bucket:Bucket", "VoicemailBucket").bucket as string;
}

/** Where the stage's permissions point, as the mocks name things. */
function targetsOf(
  evaluation: Evaluation,
  stage: string,
  extra: Partial<PermissionTargets>,
): PermissionTargets {
  return {
    partition: "aws",
    region: MOCK_REGION,
    account: MOCK_ACCOUNT,
    bucket: bucketOf(evaluation),
    outcomeBusArn: mockArn("aws:cloudwatch/eventBus:EventBus", `voxtrail-${stage}-outcomes`),
    voicemailStateMachineName: `voxtrail-${stage}-voicemail`,
    promptsStateMachineName: `voxtrail-${stage}-prompts`,
    ...extra,
  };
}

/** An IAM statement as sst's Function writes it into the role's inline policy. */
function asPolicyStatement(s: ReturnType<typeof stagePermissions>[number]) {
  return {
    Effect: "Allow",
    Action: s.actions,
    Resource: s.resources,
    ...(s.conditions
      ? { Condition: Object.fromEntries(s.conditions.map((c) => [c.test, { [c.variable]: c.values }])) }
      : {}),
  };
}

/**
 * `fn`'s statements as stacks/permissions.ts builds them for the stage, with the records object in
 * its bucket, as sst's Function writes them into the role's inline policy.
 */
function permissionsOf(
  evaluation: Evaluation,
  stage: string,
  fn: DeployedFunction,
  extra: {
    sonicEndpoint: string;
    transcribeJobPrefix?: string;
    transcribeDataAccessRoleArn?: string;
    retainsLineage?: boolean;
  },
) {
  const recordsUri = `s3://${bucketOf(evaluation)}/records/records.jsonl`;
  return stagePermissions(fn, targetsOf(evaluation, stage, { ...extra, recordsUri })).map(asPolicyStatement);
}

/** Every Amazon Transcribe job of a stage, by its job name prefix `voxtrail-<stage>-`. */
const transcriptionJobsOf = (stage: string) =>
  `arn:aws:transcribe:${MOCK_REGION}:${MOCK_ACCOUNT}:transcription-job/voxtrail-${stage}-*`;

/** Whether any statement of `statements` mentions Amazon Transcribe: its actions or its output document. */
const mentionsTranscribe = (statements: unknown[]) => /transcribe[:-]/.test(JSON.stringify(statements));

/** What Synthesize and SynthesizePrompt need on the Sonic endpoint (stacks/permissions.ts). */
const SONIC_ACTIONS = ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"];

/** Which deployed functions are allowed `action` on `resource`. */
function holders(evaluation: Evaluation, action: string, arn: string): DeployedFunction[] {
  return DEPLOYED_FUNCTIONS.filter((fn) =>
    roleStatements(evaluation, fn).some((s) => {
      const statement = s as { Action: string[]; Resource: string[] };
      return statement.Action.includes(action) && statement.Resource.includes(arn);
    }),
  );
}

/** The stage's lineage signing key, as the mocks name it. */
const SIGNING_KEY_ARN = mockArn("aws:kms/key:Key", "LineageSigningKey");

/** A statement of stacks/permissions.ts as the role's inline policy holds it. */
function statementOf(statement: IamStatement) {
  return policyDocument([statement]).Statement[0];
}

/** The statements of the role of the sst Function `component` (e.g. `LineageSigner`). */
function componentStatements(evaluation: Evaluation, component: string): unknown[] {
  const fn = resource(evaluation, "aws:lambda/function:Function", `${component}Function`);
  const role = evaluation.resources.find(
    (r) => r.type === "aws:iam/role:Role" && r.inputs.name === String(fn.role).split("/").pop(),
  );
  return ((role?.inputs.inlinePolicies ?? []) as Array<{ policy: string }>).flatMap(
    (p) => JSON.parse(p.policy).Statement,
  );
}

/** The statements of the lineage signer's role (stacks/lineage-signing.ts). */
const signerStatements = (evaluation: Evaluation) => componentStatements(evaluation, "LineageSigner");

/** The SymlinkTextInputFormat tables' formats (stacks/lineage-index.ts), as Athena's docs spell them. */
const SYMLINK_STORAGE = {
  inputFormat: "org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat",
  outputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
  serDeInfo: {
    serializationLibrary: "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
    parameters: { "serialization.format": "1" },
  },
};

describe("the stacks, evaluated under Pulumi mocks (stage ci: config/stages/dev.json)", () => {
  let evaluation: Evaluation;
  let bucketName: string;
  const dev = repositoryConfig("dev");
  beforeAll(async () => {
    evaluation = await evaluateStacks("ci", CARTESIA_SECRET_ENV);
    bucketName = bucketOf(evaluation);
  }, 120_000);

  it("sends every object event of the bucket to EventBridge", () => {
    expect(ofType(evaluation, "aws:s3/bucketNotification:BucketNotification")).toEqual([
      { bucket: bucketName, eventbridge: true },
    ]);
  });

  it("versions the bucket, blocks public access and encrypts with SSE-S3", () => {
    expect(
      resource(evaluation, "aws:s3/bucketVersioning:BucketVersioning", "VoicemailVersioning"),
    ).toMatchObject({
      bucket: bucketName,
      versioningConfiguration: { status: "Enabled" },
    });
    expect(
      resource(
        evaluation,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        "VoicemailPublicAccessBlock",
      ),
    ).toMatchObject({
      bucket: bucketName,
      blockPublicAcls: true,
      blockPublicPolicy: true,
      ignorePublicAcls: true,
      restrictPublicBuckets: true,
    });
    expect(
      ofType(
        evaluation,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
      ),
    ).toEqual([
      { bucket: bucketName, rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: "AES256" } }] },
    ]);
  });

  it("expires each prefix as dev.json says (claims/ with incoming/, batch-results/ with reports/), never lineage/, and aborts incomplete uploads", () => {
    const lifecycles = ofType(evaluation, "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration");
    expect(lifecycles).toHaveLength(1);
    /** A rule that expires `prefix` after `days`, and noncurrent versions as dev.json says. */
    const expiring = (id: string, prefix: string, days: number | undefined) => ({
      id,
      status: "Enabled",
      filter: { prefix },
      expiration: { days },
      noncurrentVersionExpiration: { noncurrentDays: dev.storage.noncurrentVersionsExpireAfterDays },
    });
    expect(lifecycles[0]).toEqual({
      bucket: bucketName,
      rules: [
        expiring("incoming-lifecycle", "incoming/", dev.storage.incoming.expireAfterDays),
        expiring("artifacts-lifecycle", "artifacts/", dev.storage.artifacts.expireAfterDays),
        expiring("reports-lifecycle", "reports/", dev.storage.reports.expireAfterDays),
        expiring(
          "lineageSummaries-lifecycle",
          "lineage-summaries/",
          dev.storage.lineageSummaries.expireAfterDays,
        ),
        expiring("claims-lifecycle", "claims/", dev.storage.incoming.expireAfterDays),
        expiring("batchResults-lifecycle", "batch-results/", dev.storage.reports.expireAfterDays),
        {
          id: "lineageAthena-lifecycle",
          status: "Enabled",
          filter: { prefix: "lineage-athena/" },
          noncurrentVersionExpiration: { noncurrentDays: 1 },
        },
        {
          id: "lineageIndexPending-lifecycle",
          status: "Enabled",
          filter: { prefix: "lineage-index/pending/" },
          expiration: { expiredObjectDeleteMarker: true },
          noncurrentVersionExpiration: { noncurrentDays: 1 },
        },
        {
          id: "athenaResults-lifecycle",
          status: "Enabled",
          filter: { prefix: "athena-results/" },
          expiration: { days: 7 },
          noncurrentVersionExpiration: { noncurrentDays: 1 },
        },
        {
          id: "abort-incomplete-uploads",
          status: "Enabled",
          filter: {},
          abortIncompleteMultipartUpload: {
            daysAfterInitiation: dev.storage.abortIncompleteUploadsAfterDays,
          },
        },
      ],
    });
  });

  it("has no Object Lock, and one bucket policy that only denies requests without TLS", () => {
    expect(ofType(evaluation, "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration")).toEqual(
      [],
    );
    expect(resource(evaluation, "aws:s3/bucket:Bucket", "VoicemailBucket").objectLockEnabled).toBeUndefined();
    const policies = ofType(evaluation, "aws:s3/bucketPolicy:BucketPolicy");
    expect(policies).toHaveLength(1);
    expect(policies[0]?.bucket).toBe(bucketName);
    expect(JSON.parse(policies[0]?.policy as string)).toEqual({
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Deny",
          Action: ["s3:*"],
          Resource: [`arn:aws:s3:::${bucketName}`, `arn:aws:s3:::${bucketName}/*`],
          Principal: { "*": ["*"] },
          Condition: { Bool: { "aws:SecureTransport": ["false"] } },
        },
      ],
    });
  });

  it("has one rule per workflow, each on the pattern the workflow package builds for this bucket", () => {
    expect(
      ofType(evaluation, "aws:cloudwatch/eventRule:EventRule").map((rule) =>
        JSON.parse(rule.eventPattern as string),
      ),
    ).toEqual(RULES.map((rule) => rule.pattern(bucketName)));
    for (const rule of RULES) {
      expect(
        JSON.parse(
          resource(evaluation, "aws:cloudwatch/eventRule:EventRule", rule.rule).eventPattern as string,
        ),
      ).toEqual({
        source: ["aws.s3"],
        "detail-type": ["Object Created"],
        detail: { bucket: { name: [bucketName] }, object: { key: [{ prefix: rule.prefix }] } },
      });
    }
  });

  it.each(RULES)(
    "$rule targets the $workflow state machine through a role that may only start its executions",
    (rule) => {
      const stateMachineArn = workflowsOf("ci")[rule.workflow].arn;
      expect(resource(evaluation, "aws:cloudwatch/eventTarget:EventTarget", rule.target)).toEqual({
        rule: rule.rule,
        arn: stateMachineArn,
        roleArn: mockArn("aws:iam/role:Role", `${rule.rule}Role`),
      });
      const role = resource(evaluation, "aws:iam/role:Role", `${rule.rule}Role`);
      const policies = role.inlinePolicies as Array<{ policy: string }>;
      expect(policies.map((p) => JSON.parse(p.policy))).toEqual([
        {
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Action: "states:StartExecution", Resource: stateMachineArn }],
        },
      ]);
    },
  );

  it("lets each role be assumed by the one service that uses it alone, for its own rule, state machine or schedule group", () => {
    /** Only `service`, and only for `source` in the stage's account (the confused deputy's guard). */
    const trusting = (service: string, source: string) => ({
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Allow",
          Principal: { Service: service },
          Action: "sts:AssumeRole",
          Condition: {
            StringEquals: { "aws:SourceAccount": MOCK_ACCOUNT },
            ArnEquals: { "aws:SourceArn": source },
          },
        },
      ],
    });
    const workflows = workflowsOf("ci");
    const scheduleGroup = `arn:aws:scheduler:${MOCK_REGION}:${MOCK_ACCOUNT}:schedule-group/default`;
    const expected: Record<string, unknown> = {
      VoicemailStateMachineRole: trusting("states.amazonaws.com", workflows.voicemail.arn),
      VoicemailBatchStateMachineRole: trusting("states.amazonaws.com", workflows.batch.arn),
      PromptsStateMachineRole: trusting("states.amazonaws.com", workflows.prompts.arn),
      ...Object.fromEntries(
        RULES.map(({ rule }) => [
          `${rule}Role`,
          trusting("events.amazonaws.com", `arn:aws:events:${MOCK_REGION}:${MOCK_ACCOUNT}:rule/${rule}`),
        ]),
      ),
      LineageDigestsRole: trusting("scheduler.amazonaws.com", scheduleGroup),
      LineageIndexRole: trusting("scheduler.amazonaws.com", scheduleGroup),
      // A function's: Lambda, with no condition (its guide documents none), and never the account
      // root, which sst's own trust policy adds on deploy too.
      ...Object.fromEntries(
        evaluation.resources
          .filter((r) => r.type === "aws:lambda/function:Function")
          .map((fn) => [
            fn.name.replace(/Function$/, "Role"),
            {
              Version: "2012-10-17",
              Statement: [
                { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
              ],
            },
          ]),
      ),
    };
    const roles = evaluation.resources.filter((r) => r.type === "aws:iam/role:Role");
    expect(roles.map((role) => role.name).sort()).toEqual(Object.keys(expected).sort());
    for (const role of roles) {
      const trust = role.inputs.assumeRolePolicy;
      expect(typeof trust === "string" ? JSON.parse(trust) : trust, role.name).toEqual(expected[role.name]);
    }
  });

  it("deploys the builder's definition with the stage functions' ARNs under its fixed name, logging without execution data", () => {
    const functionArns = Object.fromEntries(
      STAGE_FUNCTIONS.map((fn) => [fn, functionArnOf(evaluation, fn)]),
    ) as Record<StageFunction, string>;
    const machine = resource(evaluation, "aws:sfn/stateMachine:StateMachine", "Voicemail");
    expect(machine.name).toBe("voxtrail-ci-voicemail");
    expect(JSON.parse(machine.definition as string)).toEqual(buildVoicemailDefinition({ functionArns }));
    expect(machine.loggingConfiguration).toEqual({
      level: "ERROR",
      includeExecutionData: false,
      logDestination: `${mockArn("aws:cloudwatch/logGroup:LogGroup", "/aws/vendedlogs/states/voxtrail-ci-voicemail")}:*`,
    });
    expect(inlineStatements(evaluation, "VoicemailStateMachineRole")).toEqual([
      { Effect: "Allow", Action: ["lambda:InvokeFunction"], Resource: Object.values(functionArns) },
      LOG_DELIVERY,
    ]);
  });

  it("deploys the batch builder's definition with OpenBatch's ARN over the voicemail state machine, MaxConcurrency from dev.json", () => {
    const { voicemail, batch } = workflowsOf("ci");
    const machine = resource(evaluation, "aws:sfn/stateMachine:StateMachine", "VoicemailBatch");
    expect(machine).toMatchObject({
      name: batch.name,
      roleArn: mockArn("aws:iam/role:Role", "VoicemailBatchStateMachineRole"),
      loggingConfiguration: {
        level: "ERROR",
        includeExecutionData: false,
        logDestination: `${mockArn("aws:cloudwatch/logGroup:LogGroup", `/aws/vendedlogs/states/${batch.name}`)}:*`,
      },
    });
    const definition = JSON.parse(machine.definition as string);
    expect(definition).toEqual(
      buildVoicemailBatchDefinition({
        functionArns: { openBatch: functionArnOf(evaluation, "openBatch") },
        voicemailStateMachineArn: voicemail.arn,
        maxConcurrency: dev.workflows.batchMaxConcurrency,
      }),
    );
    expect(definition.States.OpenBatch.Resource).toBe(functionArnOf(evaluation, "openBatch"));
    expect(definition.States.RunVoicemails.MaxConcurrency).toBe(4);
    expect(definition.States.RunVoicemails.ItemProcessor.States.RunVoicemail.Parameters.StateMachineArn).toBe(
      voicemail.arn,
    );
  });

  it("lets the batch role invoke OpenBatch, read manifests and voicemails, write results, run the voicemail workflow and its own map, and nothing else", () => {
    const { voicemail, batch } = workflowsOf("ci");
    const object = (key: string) => `arn:aws:s3:::${bucketName}/${key}`;
    expect(inlineStatements(evaluation, "VoicemailBatchStateMachineRole")).toEqual([
      {
        Effect: "Allow",
        Action: ["lambda:InvokeFunction"],
        Resource: [functionArnOf(evaluation, "openBatch")],
      },
      {
        Effect: "Allow",
        Action: ["s3:GetObject"],
        Resource: [object("incoming/batches/*"), object("incoming/voicemail/*")],
      },
      // So that HEAD of a voicemail that is not there is a 404 (S3.NoSuchKeyException), not a 403.
      {
        Effect: "Allow",
        Action: ["s3:ListBucket"],
        Resource: [`arn:aws:s3:::${bucketName}`],
        Condition: { StringLike: { "s3:prefix": ["incoming/voicemail/*"] } },
      },
      { Effect: "Allow", Action: RESULT_WRITER, Resource: [object("batch-results/*")] },
      { Effect: "Allow", Action: ["states:StartExecution"], Resource: [voicemail.arn] },
      {
        Effect: "Allow",
        Action: ["states:DescribeExecution", "states:StopExecution"],
        Resource: [voicemail.executions],
      },
      {
        Effect: "Allow",
        Action: ["events:PutTargets", "events:PutRule", "events:DescribeRule"],
        Resource: [
          `arn:aws:events:${MOCK_REGION}:${MOCK_ACCOUNT}:rule/StepFunctionsGetEventsForStepFunctionsExecutionRule`,
        ],
      },
      ...ownDistributedMap(batch),
      LOG_DELIVERY,
    ]);
  });

  it("deploys the prompts builder's definition with the prompt functions' ARNs, MaxConcurrency from dev.json", () => {
    const { prompts } = workflowsOf("ci");
    const functionArns = Object.fromEntries(
      PROMPT_FUNCTIONS.map((fn) => [fn, functionArnOf(evaluation, fn)]),
    ) as Record<PromptFunction, string>;
    const machine = resource(evaluation, "aws:sfn/stateMachine:StateMachine", "Prompts");
    expect(machine).toMatchObject({
      name: prompts.name,
      roleArn: mockArn("aws:iam/role:Role", "PromptsStateMachineRole"),
      loggingConfiguration: { level: "ERROR", includeExecutionData: false },
    });
    const definition = JSON.parse(machine.definition as string);
    expect(definition).toEqual(
      buildPromptsDefinition({ functionArns, maxConcurrency: dev.workflows.promptsMaxConcurrency as number }),
    );
    expect(definition.States.SynthesizePrompts.MaxConcurrency).toBe(4);
  });

  it("lets the prompts role invoke its four functions, read rows, write map results, run its own map, and nothing else", () => {
    const { prompts } = workflowsOf("ci");
    const object = (key: string) => `arn:aws:s3:::${bucketName}/${key}`;
    expect(inlineStatements(evaluation, "PromptsStateMachineRole")).toEqual([
      {
        Effect: "Allow",
        Action: ["lambda:InvokeFunction"],
        Resource: PROMPT_FUNCTIONS.map((fn) => functionArnOf(evaluation, fn)),
      },
      { Effect: "Allow", Action: ["s3:GetObject"], Resource: [object("prompts/*/rows.jsonl")] },
      { Effect: "Allow", Action: RESULT_WRITER, Resource: [object("prompts/*/map-results/*")] },
      ...ownDistributedMap(prompts),
      LOG_DELIVERY,
    ]);
  });

  it("lets Ingest describe executions of the voicemail state machine only, PreparePrompts of the prompts one only, and no other function describe any", () => {
    const { voicemail, prompts } = workflowsOf("ci");
    expect(holders(evaluation, "states:DescribeExecution", voicemail.executions)).toEqual(["ingest"]);
    expect(holders(evaluation, "states:DescribeExecution", prompts.executions)).toEqual(["preparePrompts"]);
    for (const fn of DEPLOYED_FUNCTIONS.filter((fn) => fn !== "ingest" && fn !== "preparePrompts")) {
      expect(JSON.stringify(roleStatements(evaluation, fn))).not.toContain("states:");
    }
  });

  it.each(DEPLOYED_FUNCTIONS)(
    "builds %s's entry point and runs it on nodejs22.x with its memory and timeout",
    (fn) => {
      expect(lambdaOf(evaluation, fn)).toMatchObject({
        runtime: "nodejs22.x",
        memorySize: MEMORY[fn],
        timeout: TASK_TIMEOUT[fn] - FUNCTION_TIMEOUT_MARGIN_SECONDS,
        handler: `packages/functions/src/lambda/${ENTRY[fn]}.handler`,
      });
      const builds = evaluation.rpc.filter(
        (c) => c.method === "Runtime.Build" && c.args.functionID === COMPONENT[fn],
      );
      expect(builds.map((c) => [c.args.handler, c.args.runtime])).toEqual([
        [`packages/functions/src/lambda/${ENTRY[fn]}.handler`, "nodejs22.x"],
      ]);
      const variables = variablesOf(evaluation, fn);
      expect(variables).toMatchObject({ VOXTRAIL_STAGE: "ci", VOXTRAIL_BUCKET: bucketName });
      expect(JSON.parse(variables.VOXTRAIL_BOUNDARY_POLICY as string)).toEqual(
        JSON.parse(readFileSync(new URL("../../config/boundary-policy/dev.json", import.meta.url), "utf8")),
      );
    },
  );

  it.each(STAGE_FUNCTIONS)("gives stage function %s the outcome bus", (fn) => {
    expect(variablesOf(evaluation, fn).VOXTRAIL_EVENT_BUS).toBe("voxtrail-ci-outcomes");
  });

  it("gives the prompts functions an environment their dependencies build from, and no event bus", async () => {
    // Lambda sets AWS_REGION for the function and its SDK clients.
    vi.stubEnv("AWS_REGION", MOCK_REGION);
    try {
      for (const fn of PROMPT_FUNCTIONS) {
        const variables = variablesOf(evaluation, fn);
        expect(variables.VOXTRAIL_EVENT_BUS).toBeUndefined();
        const deps = await lambdaDependencies(
          { ...variables, AWS_REGION: MOCK_REGION },
          { synthesizer: cloudSynthesizer },
        );
        expect(deps.store.bucket).toBe(bucketName);
        expect(deps.synthesizer.processor).toMatchObject({ provider: "sonic-sagemaker" });
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it.each(DEPLOYED_FUNCTIONS)("gives %s the providers of dev.json, as the functions read them back", (fn) => {
    const variables = variablesOf(evaluation, fn);
    const expected = stageSelection(dev, {
      app: "voxtrail",
      stage: "ci",
      bucket: bucketName,
      scope: { partition: "aws", account: MOCK_ACCOUNT },
      sonicEndpoint: "voxtrail-dev-sonic",
    });
    const { cartesiaApiKey, ...read } = selectionFromEnvironment(variables);
    expect(cartesiaApiKey).toBeUndefined();
    expect(read).toEqual(expected);
    expect(read).toMatchObject({
      transcriber: "cartesia-ink",
      synthesizer: "sonic-sagemaker",
      sonicEndpoint: "voxtrail-dev-sonic",
      records: "s3",
      recordsUri: `s3://${bucketName}/records/records.jsonl`,
    });
  });

  it("grants OpenBatch's role nothing but running (it calls no service: the ItemReader reads the manifest)", () => {
    expect(roleStatements(evaluation, "openBatch")).toEqual([]);
  });

  it.each(DEPLOYED_FUNCTIONS)("gives %s exactly the permissions of stacks/permissions.ts", (fn) => {
    expect(roleStatements(evaluation, fn)).toEqual(
      permissionsOf(evaluation, "ci", fn, { sonicEndpoint: "voxtrail-dev-sonic" }),
    );
    const role = evaluation.resources.find(
      (r) =>
        r.type === "aws:iam/role:Role" &&
        r.inputs.name === (lambdaOf(evaluation, fn).role as string).split("/").pop(),
    );
    expect(role?.inputs.managedPolicyArns).toEqual([
      "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    ]);
  });

  it("uses the existing Sonic endpoint by name: Synthesize and SynthesizePrompt may stream from it, and nothing is created", () => {
    for (const action of SONIC_ACTIONS) {
      expect(
        holders(
          evaluation,
          action,
          `arn:aws:sagemaker:${MOCK_REGION}:${MOCK_ACCOUNT}:endpoint/voxtrail-dev-sonic`,
        ),
        action,
      ).toEqual(["synthesize", "synthesizePrompt"]);
    }
    for (const type of SAGEMAKER_TYPES) expect(ofType(evaluation, type), type).toEqual([]);
  });

  it("links the Cartesia secret to Transcribe only, and never puts its value in an environment", () => {
    expect(evaluation.resources.filter((r) => r.type === "sst:sst:Secret").map((r) => r.name)).toEqual([
      "CartesiaApiKey",
    ]);
    const linked = evaluation.rpc
      .filter((c) => c.method === "Runtime.Build")
      .filter((c) => "CartesiaApiKey" in (c.args.links as Record<string, unknown>))
      .map((c) => c.args.functionID);
    expect(linked).toEqual([COMPONENT.transcribe]);
    for (const lambda of ofType(evaluation, "aws:lambda/function:Function")) {
      expect(JSON.stringify(lambda.environment)).not.toContain(CARTESIA_SECRET_ENV.SST_SECRET_CartesiaApiKey);
    }
  });

  it("runs Transcribe in its function (Cartesia Ink): no transcription job states, prefix or Amazon Transcribe grant anywhere", () => {
    const machine = resource(evaluation, "aws:sfn/stateMachine:StateMachine", "Voicemail");
    const states = JSON.parse(machine.definition as string).States as Record<string, unknown>;
    for (const state of Object.values(TRANSCRIPTION_JOB_STATES)) expect(states[state], state).toBeUndefined();
    expect(JSON.stringify(states)).not.toContain(WAIT_FOR_TASK_TOKEN_LAMBDA);
    for (const role of [
      "VoicemailStateMachineRole",
      "VoicemailBatchStateMachineRole",
      "PromptsStateMachineRole",
    ]) {
      expect(mentionsTranscribe(inlineStatements(evaluation, role)), role).toBe(false);
    }
    for (const fn of DEPLOYED_FUNCTIONS) {
      expect(variablesOf(evaluation, fn).VOXTRAIL_TRANSCRIBE_JOB_PREFIX, fn).toBeUndefined();
      expect(mentionsTranscribe(roleStatements(evaluation, fn)), fn).toBe(false);
    }
  });

  it("writes the stage's resources to its SSM parameter, in the format the CLI reads", () => {
    const parameters = ofType(evaluation, "aws:ssm/parameter:Parameter");
    expect(parameters).toHaveLength(1);
    expect(parameters[0]).toMatchObject({ name: stageParameterName("ci"), type: "String" });
    const workflows = workflowsOf("ci");
    const expected: StageResources = {
      stage: "ci",
      region: MOCK_REGION,
      bucket: bucketName,
      voicemailStateMachineArn: workflows.voicemail.arn,
      promptsStateMachineArn: workflows.prompts.arn,
      batchStateMachineArn: workflows.batch.arn,
      lineageSigningKeyArn: SIGNING_KEY_ARN,
      lineageIndexDatabase: "voxtrail_ci_lineage",
      lineageIndexWorkgroup: "voxtrail-ci-lineage",
      lineageIndexReaderPolicyArn: `arn:aws:iam::${MOCK_ACCOUNT}:policy/voxtrail-ci-LineageIndexReader`,
    };
    expect(JSON.parse(parameters[0]?.value as string)).toEqual(expected);
  });

  it("signs the lineage every hour with a P-256 KMS key for signing, which only the lineage signer may use", () => {
    expect(resource(evaluation, "aws:kms/key:Key", "LineageSigningKey")).toMatchObject({
      customerMasterKeySpec: "ECC_NIST_P256",
      keyUsage: "SIGN_VERIFY",
      deletionWindowInDays: 30,
    });
    expect(JSON.parse(resource(evaluation, "aws:kms/key:Key", "LineageSigningKey").policy as string)).toEqual(
      accountKeyPolicy({ partition: "aws", region: MOCK_REGION, account: MOCK_ACCOUNT }),
    );
    const signer = resource(evaluation, "aws:lambda/function:Function", "LineageSignerFunction");
    expect(signer).toMatchObject({
      runtime: "nodejs22.x",
      handler: "packages/functions/src/lambda/sign-lineage.handler",
      memorySize: 512,
      timeout: 900,
    });
    const variables = (signer.environment as { variables: Record<string, string> }).variables;
    expect(variables).toMatchObject({
      VOXTRAIL_BUCKET: bucketName,
      VOXTRAIL_LINEAGE_SIGNING_KEY: SIGNING_KEY_ARN,
    });
    expect(variables.VOXTRAIL_LINEAGE_RETENTION).toBeUndefined();
    expect(signerStatements(evaluation)).toEqual(
      lineageSignerPermissions({ partition: "aws", bucket: bucketName, signingKeyArn: SIGNING_KEY_ARN }).map(
        statementOf,
      ),
    );
    for (const fn of DEPLOYED_FUNCTIONS)
      expect(JSON.stringify(roleStatements(evaluation, fn)), fn).not.toContain("kms:");
    const schedule = resource(evaluation, "aws:scheduler/schedule:Schedule", "LineageDigestsSchedule");
    const signerArn = mockArn("aws:lambda/function:Function", signer.name as string);
    expect(schedule).toMatchObject({
      scheduleExpression: "rate(1 hour)",
      state: "ENABLED",
      target: { arn: signerArn },
    });
    expect(inlineStatements(evaluation, "LineageDigestsRole")).toEqual([
      { Effect: "Allow", Action: ["lambda:InvokeFunction"], Resource: [signerArn] },
    ]);
    expect(evaluation.outputs).toMatchObject({ lineageSigningKey: SIGNING_KEY_ARN });
  });

  it("compacts the lineage index every 15 minutes, one run at a time, with exactly the compactor's permissions", () => {
    const compactor = resource(evaluation, "aws:lambda/function:Function", "LineageIndexCompactorFunction");
    expect(compactor).toMatchObject({
      runtime: "nodejs22.x",
      handler: "packages/functions/src/lambda/compact-lineage-index.handler",
      memorySize: 1024,
      timeout: 900,
      reservedConcurrentExecutions: 1,
    });
    expect((compactor.environment as { variables: Record<string, string> }).variables).toMatchObject({
      VOXTRAIL_BUCKET: bucketName,
    });
    expect(componentStatements(evaluation, "LineageIndexCompactor")).toEqual(
      lineageIndexCompactorPermissions({ partition: "aws", bucket: bucketName }).map(statementOf),
    );
    // No other function may write the index (but for the notes jobs leave as they end) or its
    // symlinks, or delete a version anywhere.
    for (const statements of DEPLOYED_FUNCTIONS.map((fn) => roleStatements(evaluation, fn))) {
      expect(JSON.stringify(statements)).not.toMatch(
        /lineage-index\/(?!pending\/)|lineage-athena\/|s3:Delete/,
      );
    }
    // The signer only lists and reads the manifests (each digest names the generation current).
    const signer = signerStatements(evaluation) as Array<{ Action: string[] }>;
    const readsOnly = signer.filter((statement) =>
      statement.Action.every((action) => action === "s3:GetObject" || action === "s3:ListBucket"),
    );
    expect(JSON.stringify(signer.filter((statement) => !readsOnly.includes(statement)))).not.toMatch(
      /lineage-index\/|lineage-athena\/|s3:Delete/,
    );
    expect(JSON.stringify(readsOnly)).not.toMatch(/lineage-index\/(?!manifests\/\*)|lineage-athena\//);
    const schedule = resource(evaluation, "aws:scheduler/schedule:Schedule", "LineageIndexSchedule");
    const compactorArn = mockArn("aws:lambda/function:Function", compactor.name as string);
    expect(schedule).toMatchObject({
      scheduleExpression: "rate(15 minutes)",
      state: "ENABLED",
      target: { arn: compactorArn },
    });
    expect(inlineStatements(evaluation, "LineageIndexRole")).toEqual([
      { Effect: "Allow", Action: ["lambda:InvokeFunction"], Resource: [compactorArn] },
    ]);
  });

  it("declares the index's four tables in the stage's Glue database: symlink tables over the live Parquet files, partitioned by a projected day", () => {
    expect(
      resource(evaluation, "aws:glue/catalogDatabase:CatalogDatabase", "LineageIndexDatabase"),
    ).toMatchObject({
      name: "voxtrail_ci_lineage",
    });
    const tables = ofType(evaluation, "aws:glue/catalogTable:CatalogTable");
    expect(tables.map((t) => t.name).sort()).toEqual(["edges", "flows", "jobs", "records"]);
    for (const table of LINEAGE_INDEX_TABLES) {
      const symlinks = `s3://${bucketName}/lineage-athena/${table}/`;
      expect(tables.find((t) => t.name === table)).toEqual({
        name: table,
        databaseName: "voxtrail_ci_lineage",
        description: expect.any(String),
        tableType: "EXTERNAL_TABLE",
        parameters: {
          EXTERNAL: "TRUE",
          classification: "parquet",
          "projection.enabled": "true",
          "projection.day.type": "date",
          "projection.day.format": "yyyy-MM-dd",
          "projection.day.range": `${LINEAGE_INDEX_FIRST_DAY},NOW`,
          "projection.day.interval": "1",
          "projection.day.interval.unit": "DAYS",
          "storage.location.template": `${symlinks}day=\${day}/`,
        },
        partitionKeys: [{ name: "day", type: "string" }],
        storageDescriptor: { ...SYMLINK_STORAGE, location: symlinks, columns: LINEAGE_INDEX_COLUMNS[table] },
      });
    }
  });

  it("runs the lineage questions in one workgroup that enforces its results location (SSE-S3), engine and scan cutoff", () => {
    expect(resource(evaluation, "aws:athena/workgroup:Workgroup", "LineageIndexWorkgroup")).toMatchObject({
      name: "voxtrail-ci-lineage",
      configuration: {
        enforceWorkgroupConfiguration: true,
        bytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        engineVersion: { selectedEngineVersion: "Athena engine version 3" },
        resultConfiguration: {
          outputLocation: `s3://${bucketName}/athena-results/`,
          encryptionConfiguration: { encryptionOption: "SSE_S3" },
          expectedBucketOwner: MOCK_ACCOUNT,
        },
      },
    });
  });

  it("gives auditors a reader policy for that workgroup, the stage's tables and what they read, and nothing else", () => {
    const policy = resource(evaluation, "aws:iam/policy:Policy", "LineageIndexReader");
    expect(policy.name).toBe("voxtrail-ci-LineageIndexReader");
    expect(JSON.parse(policy.policy as string)).toEqual(
      policyDocument(
        lineageIndexReaderPermissions({
          partition: "aws",
          region: MOCK_REGION,
          account: MOCK_ACCOUNT,
          bucket: bucketName,
          database: "voxtrail_ci_lineage",
          workgroup: "voxtrail-ci-lineage",
        }),
      ),
    );
    const text = policy.policy as string;
    // Never a wildcard resource, never a write outside the results, never the manifests or summaries.
    expect(text).not.toMatch(/"\*"|lineage-summaries|manifests|\/lineage\/|athena:\*|glue:\*|s3:\*/);
    expect(evaluation.outputs).toMatchObject({
      lineageIndexDatabase: "voxtrail_ci_lineage",
      lineageIndexWorkgroup: "voxtrail-ci-lineage",
      lineageIndexReaderPolicy: `arn:aws:iam::${MOCK_ACCOUNT}:policy/voxtrail-ci-LineageIndexReader`,
    });
  });

  it("does not protect a non-production stage from removal", () => {
    expect(evaluation.outputs).toMatchObject({ _protect: false });
  });
});

describe("the stacks, evaluated under Pulumi mocks (stage production: config/stages/production.json)", () => {
  let production: Evaluation;
  let bucketName: string;
  const config = subscribedProductionConfig();
  const sonicArn = `arn:aws:sagemaker:${MOCK_REGION}:${MOCK_ACCOUNT}:endpoint/voxtrail-production-sonic`;
  beforeAll(async () => {
    // The repository's production.json, its model package ARN from the deploying shell.
    production = await evaluateStacks("production", { ...PRODUCTION_ENV, ...CARTESIA_SECRET_ENV });
    bucketName = bucketOf(production);
  }, 120_000);

  it("protects production and deploys its own boundary policy", () => {
    expect(production.outputs).toMatchObject({ _protect: true });
    const policy = JSON.parse(
      readFileSync(new URL("../../config/boundary-policy/production.json", import.meta.url), "utf8"),
    );
    for (const fn of STAGE_FUNCTIONS) {
      expect(JSON.parse(variablesOf(production, fn).VOXTRAIL_BOUNDARY_POLICY as string)).toEqual(policy);
    }
  });

  it("creates the Sonic model from the subscribed package, with network isolation and its own role", () => {
    const model = resource(production, "aws:sagemaker/model:Model", "SonicModel");
    expect(model).toEqual({
      executionRoleArn: mockArn("aws:iam/role:Role", "SonicExecutionRole"),
      primaryContainer: { modelPackageName: TEST_MODEL_PACKAGE_ARN },
      enableNetworkIsolation: true,
    });
    const role = resource(production, "aws:iam/role:Role", "SonicExecutionRole");
    expect(role.assumeRolePolicy).toMatchObject({
      Statement: [{ Action: "sts:AssumeRole", Principal: { Service: "sagemaker.amazonaws.com" } }],
    });
    const statements = (role.inlinePolicies as Array<{ policy: string }>).flatMap(
      (p) => JSON.parse(p.policy).Statement,
    );
    expect(statements[0]).toMatchObject({
      Resource: `arn:aws:logs:${MOCK_REGION}:${MOCK_ACCOUNT}:log-group:/aws/sagemaker/Endpoints/voxtrail-production-sonic*`,
    });
  });

  it("serves it from two GPU instances or more, routing each stream to the least busy one", () => {
    const endpointConfiguration = resource(
      production,
      "aws:sagemaker/endpointConfiguration:EndpointConfiguration",
      "SonicEndpointConfiguration",
    );
    expect(endpointConfiguration.productionVariants).toEqual([
      {
        variantName: "AllTraffic",
        modelName: "SonicModel",
        instanceType: "ml.g6e.xlarge",
        initialInstanceCount: 2,
        initialVariantWeight: 1,
        routingConfigs: [{ routingStrategy: "LEAST_OUTSTANDING_REQUESTS" }],
      },
    ]);
    expect(resource(production, "aws:sagemaker/endpoint:Endpoint", "SonicEndpoint")).toEqual({
      name: "voxtrail-production-sonic",
      endpointConfigName: "SonicEndpointConfiguration",
    });
  });

  it("scales the variant on concurrent requests per model, between the configured bounds", () => {
    const sonic = config.sonic as { minInstances: number; maxInstances: number };
    const target = resource(production, "aws:appautoscaling/target:Target", "SonicScalingTarget");
    expect(target).toEqual({
      serviceNamespace: "sagemaker",
      scalableDimension: "sagemaker:variant:DesiredInstanceCount",
      resourceId: "endpoint/voxtrail-production-sonic/variant/AllTraffic",
      minCapacity: sonic.minInstances,
      maxCapacity: sonic.maxInstances,
    });
    expect(sonic.minInstances).toBeGreaterThanOrEqual(2);
    expect(resource(production, "aws:appautoscaling/policy:Policy", "SonicScalingPolicy")).toMatchObject({
      policyType: "TargetTrackingScaling",
      serviceNamespace: "sagemaker",
      scalableDimension: "sagemaker:variant:DesiredInstanceCount",
      resourceId: "endpoint/voxtrail-production-sonic/variant/AllTraffic",
      targetTrackingScalingPolicyConfiguration: {
        targetValue: 3,
        predefinedMetricSpecification: {
          predefinedMetricType: "SageMakerVariantConcurrentRequestsPerModelHighResolution",
        },
      },
    });
  });

  it("names the created endpoint to Synthesize and SynthesizePrompt, which alone may stream from it", () => {
    expect(variablesOf(production, "synthesize").VOXTRAIL_SONIC_ENDPOINT).toBe("voxtrail-production-sonic");
    expect(variablesOf(production, "synthesizePrompt").VOXTRAIL_SONIC_ENDPOINT).toBe(
      "voxtrail-production-sonic",
    );
    for (const action of SONIC_ACTIONS) {
      expect(holders(production, action, sonicArn), action).toEqual(["synthesize", "synthesizePrompt"]);
    }
    for (const fn of DEPLOYED_FUNCTIONS) {
      expect(roleStatements(production, fn)).toEqual(
        permissionsOf(production, "production", fn, {
          sonicEndpoint: "voxtrail-production-sonic",
          transcribeJobPrefix: "voxtrail-production-",
          transcribeDataAccessRoleArn: `arn:aws:iam::${MOCK_ACCOUNT}:role/voxtrail-production-transcribe-data-access`,
          retainsLineage: true,
        }),
      );
    }
  });

  it("transcribes with Amazon Transcribe: every function reads the choice and the stage's job name prefix back, and none gets a Cartesia key", () => {
    for (const fn of DEPLOYED_FUNCTIONS) {
      const variables = variablesOf(production, fn);
      expect(variables).toMatchObject({
        VOXTRAIL_TRANSCRIBER: "amazon-transcribe",
        VOXTRAIL_TRANSCRIBE_JOB_PREFIX: "voxtrail-production-",
      });
      const { cartesiaApiKey: _, ...read } = selectionFromEnvironment(variables);
      expect(read).toEqual(
        stageSelection(config, {
          app: "voxtrail",
          stage: "production",
          bucket: bucketName,
          scope: { partition: "aws", account: MOCK_ACCOUNT },
          sonicEndpoint: "voxtrail-production-sonic",
        }),
      );
    }
    // No provider of production calls Cartesia: no secret, nothing linked.
    expect(production.resources.filter((r) => r.type === "sst:sst:Secret")).toEqual([]);
    const linked = production.rpc
      .filter((c) => c.method === "Runtime.Build")
      .filter((c) => "CartesiaApiKey" in (c.args.links as Record<string, unknown>));
    expect(linked).toEqual([]);
  });

  it("runs Transcribe as an Amazon Transcribe job: start, wait for its event (a task token), read, all the function's", () => {
    const functionArns = Object.fromEntries(
      STAGE_FUNCTIONS.map((fn) => [fn, functionArnOf(production, fn)]),
    ) as Record<StageFunction, string>;
    const machine = resource(production, "aws:sfn/stateMachine:StateMachine", "Voicemail");
    const definition = JSON.parse(machine.definition as string);
    expect(definition).toEqual(buildVoicemailDefinition({ functionArns, transcription: "service-job" }));
    const states = definition.States as Record<string, Record<string, unknown>>;
    expect(states[TRANSCRIPTION_JOB_STATES.await]).toMatchObject({
      Resource: WAIT_FOR_TASK_TOKEN_LAMBDA,
      Parameters: { FunctionName: functionArns.transcribe },
    });
    // The state machine's role: its six functions, nothing of Transcribe's.
    expect(inlineStatements(production, "VoicemailStateMachineRole")).toEqual([
      { Effect: "Allow", Action: ["lambda:InvokeFunction"], Resource: Object.values(functionArns) },
      LOG_DELIVERY,
    ]);
  });

  it("resumes the workflow on Transcribe's job events for the stage's jobs: a rule invoking the Transcribe function, allowed for that rule alone", () => {
    const rule = resource(production, "aws:cloudwatch/eventRule:EventRule", "TranscriptionEnded");
    expect(JSON.parse(rule.eventPattern as string)).toEqual(
      transcriptionEndedPattern("voxtrail-production-"),
    );
    const target = resource(production, "aws:cloudwatch/eventTarget:EventTarget", "ResumeTranscription");
    expect(target).toMatchObject({
      arn: functionArnOf(production, "transcribe"),
      inputTransformer: TRANSCRIPTION_ENDED_INPUT,
      retryPolicy: { maximumEventAgeInSeconds: 86_400, maximumRetryAttempts: 185 },
    });
    expect(target.roleArn).toBeUndefined();
    expect(
      resource(production, "aws:lambda/permission:Permission", "TranscriptionEndedInvokes"),
    ).toMatchObject({
      action: "lambda:InvokeFunction",
      principal: "events.amazonaws.com",
      sourceArn: mockArn("aws:cloudwatch/eventRule:EventRule", "TranscriptionEnded"),
    });
  });

  it("queues jobs with a data-access role only Transcribe may assume, for the stage's jobs, that reads a job's media and writes its output", () => {
    const role = resource(production, "aws:iam/role:Role", "TranscribeDataAccess");
    expect(role.name).toBe("voxtrail-production-transcribe-data-access");
    expect(JSON.parse(role.assumeRolePolicy as string).Statement).toEqual([
      {
        Effect: "Allow",
        Principal: { Service: "transcribe.amazonaws.com" },
        Action: "sts:AssumeRole",
        Condition: {
          StringEquals: { "aws:SourceAccount": MOCK_ACCOUNT },
          ArnLike: { "aws:SourceArn": transcriptionJobsOf("production") },
        },
      },
    ]);
    const policy = (role.inlinePolicies as Array<{ policy: string }>)[0]?.policy as string;
    expect(JSON.parse(policy).Statement).toEqual([
      {
        Effect: "Allow",
        Action: ["s3:GetObject"],
        Resource: [`arn:aws:s3:::${bucketName}/artifacts/*/normalized.wav`],
      },
      {
        Effect: "Allow",
        Action: ["s3:PutObject"],
        Resource: [`arn:aws:s3:::${bucketName}/artifacts/*/transcribe-output.json`],
      },
    ]);
    const roleArn = `arn:aws:iam::${MOCK_ACCOUNT}:role/voxtrail-production-transcribe-data-access`;
    expect(variablesOf(production, "transcribe").VOXTRAIL_TRANSCRIBE_DATA_ACCESS_ROLE_ARN).toBe(roleArn);
    expect(roleStatements(production, "transcribe")).toContainEqual({
      Effect: "Allow",
      Action: ["iam:PassRole"],
      Resource: [roleArn],
      Condition: { StringEquals: { "iam:PassedToService": ["transcribe.amazonaws.com"] } },
    });
  });

  it("gates the Sonic endpoint: the synthesis functions' reserved concurrency sums to its capacity fully scaled out", () => {
    const reserved = (fn: DeployedFunction) => lambdaOf(production, fn).reservedConcurrentExecutions;
    expect(reserved("synthesize")).toBe(18);
    expect(reserved("synthesizePrompt")).toBe(6);
    expect(synthesisGates(config)).toEqual({ capacity: 24, synthesize: 18, synthesizePrompt: 6 });
    expect(reserved("ingest")).toBeUndefined();
  });

  it("lets Transcribe alone start jobs that write only a job's transcribe-output.json in the stage's bucket, and write and read that file", () => {
    const output = `arn:aws:s3:::${bucketName}/artifacts/*/transcribe-output.json`;
    const statements = roleStatements(production, "transcribe");
    // StartTranscriptionJob takes no resource type (Service Authorization Reference): `*`, held
    // to the stage's bucket and a job's output key by the action's own condition keys.
    expect(statements).toContainEqual({
      Effect: "Allow",
      Action: ["transcribe:StartTranscriptionJob"],
      Resource: ["*"],
      Condition: {
        StringEquals: { "transcribe:OutputBucketName": [bucketName] },
        StringLike: { "transcribe:OutputKey": ["artifacts/*/transcribe-output.json"] },
      },
    });
    // Transcribe writes the output with the data-access role; the read step reads it back.
    expect(holders(production, "s3:PutObject", output)).toEqual([]);
    expect(holders(production, "s3:GetObject", output)).toEqual(["transcribe"]);
    expect(holders(production, "transcribe:StartTranscriptionJob", "*")).toEqual(["transcribe"]);
    for (const fn of DEPLOYED_FUNCTIONS.filter((fn) => fn !== "transcribe")) {
      expect(mentionsTranscribe(roleStatements(production, fn)), fn).toBe(false);
    }
    // No state machine may touch a transcription job.
    for (const role of [
      "VoicemailStateMachineRole",
      "VoicemailBatchStateMachineRole",
      "PromptsStateMachineRole",
    ]) {
      expect(mentionsTranscribe(inlineStatements(production, role)), role).toBe(false);
    }
  });

  it("runs 12 voicemails of a batch at once, and a quarter of what the endpoint serves scaled out in prompts (24 / 4)", () => {
    const batch = JSON.parse(
      resource(production, "aws:sfn/stateMachine:StateMachine", "VoicemailBatch").definition as string,
    );
    expect(batch.States.RunVoicemails.MaxConcurrency).toBe(config.workflows.batchMaxConcurrency);
    expect(config.workflows.batchMaxConcurrency).toBe(12);
    const prompts = JSON.parse(
      resource(production, "aws:sfn/stateMachine:StateMachine", "Prompts").definition as string,
    );
    expect(config.workflows.promptsMaxConcurrency).toBeUndefined();
    expect(prompts.States.SynthesizePrompts.MaxConcurrency).toBe(6);
    expect(prompts).toEqual(
      buildPromptsDefinition({
        functionArns: Object.fromEntries(
          PROMPT_FUNCTIONS.map((fn) => [fn, functionArnOf(production, fn)]),
        ) as Record<PromptFunction, string>,
        maxConcurrency: 6,
      }),
    );
  });

  it("moves reports to Standard-IA, then expires them, as production.json says", () => {
    const [lifecycle] = ofType(
      production,
      "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
    );
    const rules = lifecycle?.rules as Array<Record<string, unknown>>;
    expect(rules.find((r) => r.id === "reports-lifecycle")).toEqual({
      id: "reports-lifecycle",
      status: "Enabled",
      filter: { prefix: "reports/" },
      transitions: [{ days: 30, storageClass: "STANDARD_IA" }],
      expiration: { days: 400 },
      noncurrentVersionExpiration: { noncurrentDays: 30 },
    });
    expect(rules.map((r) => (r.filter as { prefix?: string }).prefix)).not.toContain("lineage/");
  });

  it("creates the bucket with Object Lock (and so versioning) on, retains the audit trail per object and never caller data, and denies removing any version of it", () => {
    // On the bucket resource itself: S3 enables versioning with it at creation, which Object Lock
    // needs; sst's separate versioning resource is made inside an apply nothing can wait for.
    expect(resource(production, "aws:s3/bucket:Bucket", "VoicemailBucket")).toMatchObject({
      objectLockEnabled: true,
    });
    // No default retention: it would lock caller audio too, and block its erasure.
    expect(ofType(production, "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration")).toEqual(
      [],
    );
    for (const fn of DEPLOYED_FUNCTIONS) {
      expect(variablesOf(production, fn).VOXTRAIL_LINEAGE_RETENTION).toBe("COMPLIANCE:30");
    }
    const object = (key: string) => `arn:aws:s3:::${bucketName}/${key}`;
    // Whoever writes activity records or summaries puts them with their retention; nothing else is retained.
    expect(holders(production, "s3:PutObjectRetention", object("lineage/*")).sort()).toEqual(
      DEPLOYED_FUNCTIONS.filter((fn) => fn !== "recordPromptFailure" && fn !== "openBatch").sort(),
    );
    expect(holders(production, "s3:PutObjectRetention", object("lineage-summaries/*")).sort()).toEqual(
      ["finalize", "recordFailure", "writePromptsReport"].sort(),
    );
    const retained = DEPLOYED_FUNCTIONS.flatMap((fn) =>
      (roleStatements(production, fn) as Array<{ Action: string[]; Resource: string[] }>)
        .filter((statement) => statement.Action.includes("s3:PutObjectRetention"))
        .flatMap((statement) => statement.Resource),
    );
    expect(new Set(retained)).toEqual(new Set([object("lineage/*"), object("lineage-summaries/*")]));
    // The lineage signer's digests are retained as well.
    const signer = resource(production, "aws:lambda/function:Function", "LineageSignerFunction");
    expect((signer.environment as { variables: Record<string, string> }).variables).toMatchObject({
      VOXTRAIL_LINEAGE_RETENTION: "COMPLIANCE:30",
    });
    expect(signerStatements(production)).toContainEqual({
      Effect: "Allow",
      Action: ["s3:PutObjectRetention"],
      Resource: [object("lineage-digests/*")],
    });
    const [policy] = ofType(production, "aws:s3/bucketPolicy:BucketPolicy");
    expect(JSON.parse(policy?.policy as string).Statement).toContainEqual({
      Effect: "Deny",
      Action: ["s3:DeleteObjectVersion", "s3:BypassGovernanceRetention"],
      Resource: ["lineage/*", "lineage-summaries/*", "lineage-digests/*", "erasures/*"].map(object),
      Principal: { "*": ["*"] },
    });
  });
});

describe("the stacks, evaluated under Pulumi mocks (Bedrock and Cartesia's API, configured)", () => {
  it("grants the Bedrock model to Reason only, links Cartesia to Synthesize, creates no Sonic endpoint, and mails alarms", async () => {
    const dev = repositoryConfig("dev");
    const { sonic: _, ...rest } = dev;
    const config = {
      ...rest,
      providers: {
        ...dev.providers,
        reasoner: "bedrock",
        bedrockModelId: "amazon.nova-lite-v1:0",
        synthesizer: "cartesia-api",
      },
      observability: { ...dev.observability, alarmEmail: "oncall@example.com" },
    };
    const evaluation = await evaluateStacks("preview", {
      ...configEnvironment(config),
      ...CARTESIA_SECRET_ENV,
    });
    expect(
      holders(
        evaluation,
        "bedrock:InvokeModel",
        `arn:aws:bedrock:${MOCK_REGION}::foundation-model/amazon.nova-lite-v1:0`,
      ),
    ).toEqual(["reason"]);
    const linked = evaluation.rpc
      .filter((c) => c.method === "Runtime.Build")
      .filter((c) => "CartesiaApiKey" in (c.args.links as Record<string, unknown>))
      .map((c) => c.args.functionID);
    expect(linked.sort()).toEqual(
      [COMPONENT.synthesize, COMPONENT.transcribe, COMPONENT.synthesizePrompt].sort(),
    );
    for (const fn of DEPLOYED_FUNCTIONS) {
      expect(JSON.stringify(roleStatements(evaluation, fn))).not.toContain("sagemaker:");
      expect(variablesOf(evaluation, fn).VOXTRAIL_SONIC_ENDPOINT).toBeUndefined();
    }
    for (const type of SAGEMAKER_TYPES) expect(ofType(evaluation, type), type).toEqual([]);
    // The ttfb alarm follows the synthesizer; alarms reach the configured address; no Sonic widget.
    const ttfb = resource(evaluation, "aws:cloudwatch/metricAlarm:MetricAlarm", "SynthesisTtfbAlarm");
    expect(ttfb.dimensions).toMatchObject({
      environment: "preview",
      stage: "Synthesize",
      provider: "cartesia-api",
    });
    expect(ofType(evaluation, "aws:sns/topicSubscription:TopicSubscription")).toEqual([
      {
        topic: mockArn("aws:sns/topic:Topic", "voxtrail-preview-alarms"),
        protocol: "email",
        endpoint: "oncall@example.com",
      },
    ]);
    const body = resource(evaluation, "aws:cloudwatch/dashboard:Dashboard", "Dashboard")
      .dashboardBody as string;
    expect(body).not.toContain("AWS/SageMaker");
  }, 120_000);
});

describe("the lineage index as the stacks declare it, against the lineage package that writes it", () => {
  it("declares each table's Parquet columns, STRING as string and INT32 as int, but the jobs table's day (the partition key)", () => {
    expect([...LINEAGE_INDEX_TABLES]).toEqual([...INDEX_TABLES]);
    for (const table of INDEX_TABLES) {
      const fromFiles = INDEX_COLUMNS[table]
        .filter((column) => column.name !== "day")
        .map((column) => ({ name: column.name, type: column.type === "INT32" ? "int" : "string" }));
      expect(LINEAGE_INDEX_COLUMNS[table], table).toEqual(fromFiles);
    }
    // Only jobs holds a day column: a job's rows are in the partition of that very day.
    expect(INDEX_TABLES.filter((table) => INDEX_COLUMNS[table].some((c) => c.name === "day"))).toEqual([
      "jobs",
    ]);
  });

  it("points the tables at the folders the compactor writes its symlinks in", () => {
    expect(LINEAGE_ATHENA_PREFIX).toBe(ATHENA_SYMLINKS_PREFIX);
  });

  it("names the database and workgroup as Athena and Glue allow, whatever the stage is called", () => {
    expect(lineageIndexDatabaseName("voxtrail", "production")).toBe("voxtrail_production_lineage");
    expect(lineageIndexDatabaseName("voxtrail", "PR-12.x")).toBe("voxtrail_pr_12_x_lineage");
    expect(lineageIndexWorkgroupName("voxtrail", "pr-12")).toBe("voxtrail-pr-12-lineage");
    expect(lineageIndexWorkgroupName("voxtrail", "a b")).toBe("voxtrail-a-b-lineage");
  });
});
