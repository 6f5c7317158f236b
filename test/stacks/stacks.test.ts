import { readFileSync } from "node:fs";
import {
  buildVoicemailDefinition,
  STAGE_FUNCTIONS,
  STAGE_TIMEOUT_SECONDS,
  type StageFunction,
  voicemailRulePattern,
} from "@voxtrail/workflow";
import { beforeAll, describe, expect, it } from "vitest";
import { type Evaluation, MOCK_ACCOUNT, MOCK_REGION, mockArn } from "../../stacks/mocks/evaluation";
import { stagePermissions } from "../../stacks/permissions";
import { evaluateStacks } from "./evaluate-stacks";

/** The logical name of each stage function's sst.aws.Function. */
const COMPONENT: Record<StageFunction, string> = {
  ingest: "StageIngest",
  transcribe: "StageTranscribe",
  reason: "StageReason",
  synthesize: "StageSynthesize",
  finalize: "StageFinalize",
  recordFailure: "StageRecordFailure",
};
const ENTRY: Record<StageFunction, string> = {
  ingest: "ingest",
  transcribe: "transcribe",
  reason: "reason",
  synthesize: "synthesize",
  finalize: "finalize",
  recordFailure: "record-failure",
};
/** Lambda timeouts match the state machine's per-stage timeouts; the failure recorder is small. */
const TIMEOUT: Record<StageFunction, number> = {
  ingest: STAGE_TIMEOUT_SECONDS.Ingest,
  transcribe: STAGE_TIMEOUT_SECONDS.Transcribe,
  reason: STAGE_TIMEOUT_SECONDS.Reason,
  synthesize: STAGE_TIMEOUT_SECONDS.Synthesize,
  finalize: STAGE_TIMEOUT_SECONDS.Finalize,
  recordFailure: 30,
};
const MEMORY: Record<StageFunction, number> = {
  ingest: 1024,
  transcribe: 1024,
  reason: 512,
  synthesize: 1024,
  finalize: 256,
  recordFailure: 256,
};

type Inputs = Record<string, unknown>;

function resource(evaluation: Evaluation, type: string, name: string): Inputs {
  const found = evaluation.resources.filter((r) => r.type === type && r.name === name);
  expect(found, `${type} ${name}`).toHaveLength(1);
  return found[0]?.inputs as Inputs;
}

/** The statements of the inline policies of a stage function's role. */
function roleStatements(evaluation: Evaluation, fn: StageFunction): unknown[] {
  const lambda = resource(evaluation, "aws:lambda/function:Function", `${COMPONENT[fn]}Function`);
  const roleName = (lambda.role as string).split("/").pop();
  const roles = evaluation.resources.filter(
    (r) => r.type === "aws:iam/role:Role" && r.inputs.name === roleName,
  );
  expect(roles).toHaveLength(1);
  const policies = (roles[0]?.inputs.inlinePolicies ?? []) as Array<{ policy: string }>;
  return policies.flatMap((p) => JSON.parse(p.policy).Statement);
}

function ofType(evaluation: Evaluation, type: string): Inputs[] {
  return evaluation.resources.filter((r) => r.type === type).map((r) => r.inputs);
}

describe("the stacks, evaluated under Pulumi mocks (stage ci)", () => {
  let evaluation: Evaluation;
  let bucketName: string;
  beforeAll(async () => {
    evaluation = await evaluateStacks("ci");
    bucketName = resource(evaluation, "aws:s3/bucket:Bucket", "VoicemailBucket").bucket as string;
  }, 120_000);

  it("sends every object event of the bucket to EventBridge", () => {
    expect(ofType(evaluation, "aws:s3/bucketNotification:BucketNotification")).toEqual([
      { bucket: bucketName, eventbridge: true },
    ]);
  });

  it("versions the bucket and blocks public access", () => {
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
  });

  it("has one bucket policy, and it only denies requests without TLS", () => {
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

  it("starts the workflow on the rule pattern the workflow package builds for this bucket", () => {
    const rules = ofType(evaluation, "aws:cloudwatch/eventRule:EventRule");
    expect(rules).toHaveLength(1);
    expect(JSON.parse(rules[0]?.eventPattern as string)).toEqual(voicemailRulePattern(bucketName));
  });

  it("targets the state machine through a role that may only start its executions", () => {
    const stateMachineArn = mockArn("aws:sfn/stateMachine:StateMachine", "Voicemail");
    expect(ofType(evaluation, "aws:cloudwatch/eventTarget:EventTarget")).toEqual([
      {
        rule: "VoicemailArrived",
        arn: stateMachineArn,
        roleArn: mockArn("aws:iam/role:Role", "VoicemailArrivedRole"),
      },
    ]);
    const role = resource(evaluation, "aws:iam/role:Role", "VoicemailArrivedRole");
    expect(role.assumeRolePolicy).toMatchObject({
      Statement: [
        { Action: "sts:AssumeRole", Effect: "Allow", Principal: { Service: "events.amazonaws.com" } },
      ],
    });
    const policies = role.inlinePolicies as Array<{ policy: string }>;
    expect(policies.map((p) => JSON.parse(p.policy))).toEqual([
      {
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Action: "states:StartExecution", Resource: stateMachineArn }],
      },
    ]);
  });

  it("deploys the builder's definition with the stage functions' ARNs, logging without execution data", () => {
    const functionArns = Object.fromEntries(
      STAGE_FUNCTIONS.map((fn) => {
        const lambda = resource(evaluation, "aws:lambda/function:Function", `${COMPONENT[fn]}Function`);
        return [fn, mockArn("aws:lambda/function:Function", lambda.name as string)];
      }),
    ) as Record<StageFunction, string>;
    const machine = resource(evaluation, "aws:sfn/stateMachine:StateMachine", "Voicemail");
    expect(JSON.parse(machine.definition as string)).toEqual(buildVoicemailDefinition({ functionArns }));
    expect(machine.loggingConfiguration).toMatchObject({ level: "ERROR", includeExecutionData: false });
    const invoke = resource(evaluation, "aws:iam/role:Role", "VoicemailStateMachineRole");
    const statements = (invoke.inlinePolicies as Array<{ policy: string }>).flatMap(
      (p) => JSON.parse(p.policy).Statement,
    );
    expect(statements).toEqual([
      { Effect: "Allow", Action: "lambda:InvokeFunction", Resource: Object.values(functionArns) },
    ]);
  });

  it.each(STAGE_FUNCTIONS)(
    "builds %s's entry point and runs it on nodejs22.x with its memory and timeout",
    (fn) => {
      const lambda = resource(evaluation, "aws:lambda/function:Function", `${COMPONENT[fn]}Function`);
      expect(lambda).toMatchObject({
        runtime: "nodejs22.x",
        memorySize: MEMORY[fn],
        timeout: TIMEOUT[fn],
        handler: `packages/functions/src/lambda/${ENTRY[fn]}.handler`,
      });
      const builds = evaluation.rpc.filter(
        (c) => c.method === "Runtime.Build" && c.args.functionID === COMPONENT[fn],
      );
      expect(builds.map((c) => [c.args.handler, c.args.runtime])).toEqual([
        [`packages/functions/src/lambda/${ENTRY[fn]}.handler`, "nodejs22.x"],
      ]);
      const variables = (lambda.environment as { variables: Record<string, string> }).variables;
      expect(variables).toMatchObject({ VOXTRAIL_STAGE: "ci", VOXTRAIL_BUCKET: bucketName });
      expect(JSON.parse(variables.VOXTRAIL_BOUNDARY_POLICY as string)).toMatchObject({ schemaVersion: 1 });
    },
  );

  it.each(STAGE_FUNCTIONS)("gives %s exactly the permissions of stacks/permissions.ts", (fn) => {
    const statements = roleStatements(evaluation, fn);
    const expected = stagePermissions(fn, {
      partition: "aws",
      region: MOCK_REGION,
      account: MOCK_ACCOUNT,
      bucket: bucketName,
      outcomeBusArn: mockArn("aws:cloudwatch/eventBus:EventBus", "voxtrail-ci-outcomes"),
    });
    expect(statements).toEqual(
      expected.map((s) => ({
        Effect: "Allow",
        Action: s.actions,
        Resource: s.resources,
        ...(s.conditions
          ? { Condition: Object.fromEntries(s.conditions.map((c) => [c.test, { [c.variable]: c.values }])) }
          : {}),
      })),
    );
    const lambda = resource(evaluation, "aws:lambda/function:Function", `${COMPONENT[fn]}Function`);
    const role = evaluation.resources.find(
      (r) => r.type === "aws:iam/role:Role" && r.inputs.name === (lambda.role as string).split("/").pop(),
    );
    expect(role?.inputs.managedPolicyArns).toEqual([
      "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    ]);
  });

  it("has no Cartesia secret when no stage function calls Cartesia", () => {
    expect(ofType(evaluation, "sst:sst:Secret")).toEqual([]);
  });

  it("does not protect a non-production stage from removal", () => {
    expect(evaluation.outputs).toMatchObject({ _protect: false });
  });
});

describe("the stacks, evaluated under Pulumi mocks (stage production)", () => {
  it("protects production, deploys its own boundary policy, and grants the configured models", async () => {
    const production = await evaluateStacks("production", {
      VOXTRAIL_SYNTHESIZER: "sonic-sagemaker",
      VOXTRAIL_SONIC_ENDPOINT: "Sonic-Prod",
      VOXTRAIL_REASONER: "bedrock",
      VOXTRAIL_BEDROCK_MODEL_ID: "amazon.nova-lite-v1:0",
    });
    const grants = (fn: StageFunction) => roleStatements(production, fn);
    const sonic = {
      Effect: "Allow",
      Action: ["sagemaker:InvokeEndpointWithResponseStream"],
      Resource: [`arn:aws:sagemaker:${MOCK_REGION}:${MOCK_ACCOUNT}:endpoint/sonic-prod`],
    };
    const bedrock = {
      Effect: "Allow",
      Action: ["bedrock:InvokeModel"],
      Resource: [`arn:aws:bedrock:${MOCK_REGION}::foundation-model/amazon.nova-lite-v1:0`],
    };
    for (const fn of STAGE_FUNCTIONS) {
      expect(grants(fn).some((s) => JSON.stringify(s) === JSON.stringify(sonic))).toBe(fn === "synthesize");
      expect(grants(fn).some((s) => JSON.stringify(s) === JSON.stringify(bedrock))).toBe(fn === "reason");
    }
    expect(production.outputs).toMatchObject({ _protect: true });
    const policy = JSON.parse(
      readFileSync(new URL("../../config/boundary-policy/production.json", import.meta.url), "utf8"),
    );
    for (const fn of STAGE_FUNCTIONS) {
      const lambda = resource(production, "aws:lambda/function:Function", `${COMPONENT[fn]}Function`);
      const variables = (lambda.environment as { variables: Record<string, string> }).variables;
      expect(JSON.parse(variables.VOXTRAIL_BOUNDARY_POLICY as string)).toEqual(policy);
    }
  }, 120_000);
});

describe("the stacks, evaluated under Pulumi mocks (Cartesia Ink transcription)", () => {
  it("links the Cartesia secret to Transcribe only, and never puts its value in an environment", async () => {
    const value = "sk_test_mock_cartesia_value";
    const evaluation = await evaluateStacks("dev", {
      VOXTRAIL_TRANSCRIBER: "cartesia-ink",
      SST_SECRET_CartesiaApiKey: value,
    });
    expect(evaluation.resources.filter((r) => r.type === "sst:sst:Secret").map((r) => r.name)).toEqual([
      "CartesiaApiKey",
    ]);
    const linked = evaluation.rpc
      .filter((c) => c.method === "Runtime.Build")
      .filter((c) => "CartesiaApiKey" in (c.args.links as Record<string, unknown>))
      .map((c) => c.args.functionID);
    expect(linked).toEqual([COMPONENT.transcribe]);
    for (const lambda of ofType(evaluation, "aws:lambda/function:Function")) {
      expect(JSON.stringify(lambda.environment)).not.toContain(value);
    }
  }, 120_000);
});
