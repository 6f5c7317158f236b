import { readdirSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { managedPolicyDocument } from "../../src/rehearsal/managed-policies";
import { platformCalls } from "../../src/rehearsal/platform-calls";
import { PolicyEvaluator } from "../../src/rehearsal/policy-evaluator";
import { evaluateStage } from "../../src/rehearsal/stage-evaluation";
import { type RolePlan, type StagePlan, stagePlan } from "../../src/rehearsal/stage-plan";

const BASIC_EXECUTION = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole";

/** IAM for `plan`, as the rehearsal builds it. */
const evaluatorOf = (plan: StagePlan) =>
  new PolicyEvaluator({
    account: plan.account,
    bucket: plan.bucket,
    bucketPolicy: plan.bucketPolicy,
    keyPolicies: Object.fromEntries(plan.keys.map((key) => [key.arn, key.policy])),
  });

/** The calls of `plan` (changed by `change`, on a copy) that the rehearsal refuses. */
async function refusedWith(plan: StagePlan, change: (copy: StagePlan) => void) {
  const copy = structuredClone(plan);
  change(copy);
  return (await platformCalls(copy, evaluatorOf(copy))).filter((call) => !call.allowed);
}

const roleOf = (plan: StagePlan, logicalName: string): RolePlan => {
  const role = [
    ...plan.functions.map((f) => f.role),
    ...plan.stateMachines.map((m) => m.role),
    ...plan.rules.flatMap((r) => (r.role ? [r.role] : [])),
    ...plan.schedules.map((s) => s.role),
    ...plan.serviceRoles,
  ].find((r) => r.logicalName === logicalName);
  if (!role) throw new Error(`no role ${logicalName}`);
  return role;
};

describe.each(["dev", "production"])("the roles of stage %s, as AWS uses them", (stage) => {
  let plan: StagePlan;
  beforeAll(async () => {
    plan = await evaluateStage(stage);
  }, 120_000);

  it("lets each service alone assume its principal's role, for the stage's own resource, and Lambda write every function's logs", async () => {
    const calls = await platformCalls(plan, evaluatorOf(plan));
    expect(calls.filter((call) => !call.allowed)).toEqual([]);
    const assumed = calls.filter((call) => call.service === "sts");
    expect(assumed.map((call) => call.principal).sort()).toEqual(
      [
        ...plan.functions.map(() => "lambda.amazonaws.com"),
        ...plan.stateMachines.map(() => "states.amazonaws.com"),
        // A rule whose target is a function has no role: the function's resource policy lets it in.
        ...plan.rules.flatMap((rule) => (rule.role ? ["events.amazonaws.com"] : [])),
        ...plan.schedules.map(() => "scheduler.amazonaws.com"),
        ...plan.serviceRoles.map(() => "transcribe.amazonaws.com"),
      ].sort(),
    );
    for (const call of assumed) {
      expect(call.decisions[0]?.statement?.policy, call.operation).toBe("trust policy");
    }
    // Every function's log writes are allowed by the managed policy sst attaches, and by nothing else.
    const logs = calls.filter((call) => call.service === "logs");
    expect(logs).toHaveLength(plan.functions.length);
    for (const decision of logs.flatMap((call) => call.decisions)) {
      expect(decision.statement?.policy, `${decision.role} ${decision.action}`).toBe(BASIC_EXECUTION);
    }
  });

  it("evaluates AWSLambdaBasicExecutionRole, as vendored, with every function role's inline policies", () => {
    for (const fn of plan.functions) {
      expect(fn.role.managedPolicies, fn.component).toEqual([
        { name: BASIC_EXECUTION, document: managedPolicyDocument(BASIC_EXECUTION, fn.role.logicalName) },
      ]);
    }
    for (const role of [...plan.stateMachines, ...plan.rules, ...plan.schedules].flatMap((p) =>
      p.role ? [p.role] : [],
    )) {
      expect(role.managedPolicies, role.logicalName).toEqual([]);
    }
  });

  it("fails when a function's role trusts another service than Lambda (states.amazonaws.com), naming it", async () => {
    const refused = await refusedWith(plan, (copy) => {
      const statement = roleOf(copy, "StageIngestRole").trustPolicy.Statement[0];
      if (statement) statement.Principal = { Service: "states.amazonaws.com" };
    });
    expect(refused).toEqual([
      expect.objectContaining({
        principal: "lambda.amazonaws.com",
        operation: "AssumeRole for function StageIngest",
        refusal:
          "its trust policy does not let lambda.amazonaws.com assume it; its trust policy lets Service states.amazonaws.com assume it: only lambda.amazonaws.com may",
      }),
    ]);
  });

  it("fails when a role may be assumed by another principal besides its service", async () => {
    const refused = await refusedWith(plan, (copy) => {
      const statement = roleOf(copy, "LineageDigestsRole").trustPolicy.Statement[0];
      if (statement)
        statement.Principal = {
          Service: "scheduler.amazonaws.com",
          AWS: `arn:aws:iam::${copy.account}:root`,
        };
    });
    expect(refused.map((call) => [call.operation, call.refusal])).toEqual([
      [
        "AssumeRole for schedule LineageDigestsSchedule",
        `its trust policy lets AWS arn:aws:iam::${plan.account}:root assume it: only scheduler.amazonaws.com may`,
      ],
    ]);
  });

  it("fails when a state machine's or a rule's role may be assumed for another account or resource (no confused-deputy conditions)", async () => {
    const refused = await refusedWith(plan, (copy) => {
      for (const name of ["VoicemailStateMachineRole", "VoicemailArrivedRole"]) {
        const trust = roleOf(copy, name).trustPolicy;
        trust.Statement = trust.Statement.map(({ Condition: _, ...statement }) => statement);
      }
    });
    expect(refused.map((call) => call.operation)).toEqual([
      `AssumeRole for state machine voxtrail-${stage}-voicemail`,
      "AssumeRole for rule VoicemailArrived",
    ]);
    for (const call of refused) {
      expect(call.refusal).toMatch(/account 999999999999.*aws:SourceAccount condition is missing/);
      expect(call.refusal).toMatch(/-another in account \d+.*aws:SourceArn condition is missing/);
    }
  });

  it("has a data-access role only with Amazon Transcribe, and fails when it may be assumed for any job of the account", async () => {
    if (stage !== "production") {
      expect(plan.serviceRoles).toEqual([]);
      return;
    }
    const refused = await refusedWith(plan, (copy) => {
      const statement = roleOf(copy, "TranscribeDataAccess").trustPolicy.Statement[0] as {
        Condition: { ArnLike: Record<string, string> };
      };
      statement.Condition.ArnLike["aws:SourceArn"] =
        `arn:aws:transcribe:${copy.region}:${copy.account}:transcription-job/*`;
    });
    expect(refused.map((call) => [call.operation, call.refusal])).toEqual([
      [
        "AssumeRole for data-access role TranscribeDataAccess",
        expect.stringMatching(
          /another-stage-vm-rehearsal-run-1 in account \d+.*aws:SourceArn condition is missing or too wide/,
        ),
      ],
    ]);
  });

  it("fails when AWSLambdaBasicExecutionRole is detached from a function's role: Lambda may not write its logs", async () => {
    const refused = await refusedWith(plan, (copy) => {
      roleOf(copy, "StageIngestRole").managedPolicies = [];
    });
    const ingest = plan.functions.find((fn) => fn.component === "StageIngest");
    expect(refused).toEqual([
      expect.objectContaining({
        principal: "lambda.amazonaws.com",
        operation: `log delivery for function StageIngest (${ingest?.logGroup})`,
        refusal: "logs:CreateLogStream: no identity-based policy allows the action",
      }),
    ]);
  });
});

describe("the AWS managed policies the rehearsal evaluates", () => {
  const directory = new URL("../../src/rehearsal/managed-policies/", import.meta.url);

  it("vendors each with its version and the AWS Managed Policy Reference page it was copied from", () => {
    const files = readdirSync(directory);
    expect(files).toContain("AWSLambdaBasicExecutionRole.json");
    for (const file of files) {
      const name = file.replace(/\.json$/, "");
      const policy = JSON.parse(readFileSync(new URL(file, directory), "utf8"));
      expect(policy).toMatchObject({
        arn: expect.stringMatching(new RegExp(`^arn:aws:iam::aws:policy/(service-role/)?${name}$`)),
        versionId: expect.stringMatching(/^v\d+$/),
        source: `https://docs.aws.amazon.com/aws-managed-policy/latest/reference/${name}.html`,
        document: { Version: "2012-10-17" },
      });
    }
  });

  it("refuses a stage whose role has a managed policy it has no document for, naming the policy and the role", () => {
    const administrator = "arn:aws:iam::aws:policy/AdministratorAccess";
    const evaluation = {
      resources: [
        {
          type: "aws:iam/role:Role",
          name: "SomeRole",
          inputs: { assumeRolePolicy: "{}", managedPolicyArns: [BASIC_EXECUTION, administrator] },
        },
      ],
      rpc: [],
      outputs: {},
    };
    expect(() => stagePlan("dev", evaluation)).toThrow(
      `role SomeRole has the managed policy ${administrator} attached, and the rehearsal has no document for it`,
    );
  });
});
