import { describe, expect, it } from "vitest";
import {
  DEPLOYED_FUNCTIONS,
  type DeployedFunction,
  type PermissionTargets,
  policyDocument,
  stagePermissions,
  transcribeDataAccessPermissions,
} from "../../../../stacks/permissions";
import { PolicyEvaluator } from "../../src/rehearsal/policy-evaluator";
import type { RolePlan } from "../../src/rehearsal/stage-plan";

/**
 * Issue 41: where the unredacted transcript is kept, only the stages that need it may read it. Each
 * deployed function's role, as the stacks write it for a stage that redacts, evaluated by the
 * rehearsal's IAM evaluation (the same `PolicyEvaluator` every rehearsal call goes through).
 */
const account = "123456789012";
const bucket = "voxtrail-dev-bucket";
const object = (key: string) => `arn:aws:s3:::${bucket}/${key}`;
const UNREDACTED_TRANSCRIPT = object("artifacts/vm-0123/unredacted/transcript.json");
const REDACTED_TRANSCRIPT = object("artifacts/vm-0123/transcript.json");
const TRANSCRIBE_UNREDACTED = object("artifacts/vm-0123/unredacted/transcribe-output.json");
const TRANSCRIBE_REDACTED = object("artifacts/vm-0123/unredacted/redacted-transcribe-output.json");

const targets = (redacts: boolean): PermissionTargets => ({
  partition: "aws",
  region: "us-east-1",
  account,
  bucket,
  outcomeBusArn: `arn:aws:events:us-east-1:${account}:event-bus/voxtrail-dev-outcomes`,
  voicemailStateMachineName: "voxtrail-dev-voicemail",
  promptsStateMachineName: "voxtrail-dev-prompts",
  transcribeJobPrefix: "voxtrail-dev-",
  transcribeDataAccessRoleArn: `arn:aws:iam::${account}:role/voxtrail-dev-transcribe-data-access`,
  redacts,
});

function role(name: string, statements: ReturnType<typeof stagePermissions>): RolePlan {
  return {
    logicalName: name,
    arn: `arn:aws:iam::${account}:role/${name}`,
    trustPolicy: { Version: "2012-10-17", Statement: [] },
    managedPolicies: [],
    policies: [
      { name: "inline", document: policyDocument(statements) as RolePlan["policies"][number]["document"] },
    ],
  };
}

const iam = new PolicyEvaluator({ account, bucket, bucketPolicy: undefined, keyPolicies: {} });
const may = async (plan: RolePlan, action: string, resource: string) =>
  (await iam.authorize({ role: plan, action, resource })).allowed;

describe("who may read the unredacted transcript", () => {
  const roles = Object.fromEntries(
    DEPLOYED_FUNCTIONS.map((fn) => [fn, role(fn, stagePermissions(fn, targets(true)))]),
  ) as Record<DeployedFunction, RolePlan>;

  it("lets Reason read it and write the redacted transcript, and Transcribe write it", async () => {
    expect(await may(roles.reason, "s3:GetObject", UNREDACTED_TRANSCRIPT)).toBe(true);
    expect(await may(roles.reason, "s3:PutObject", REDACTED_TRANSCRIPT)).toBe(true);
    expect(await may(roles.transcribe, "s3:PutObject", UNREDACTED_TRANSCRIPT)).toBe(true);
    expect(await may(roles.transcribe, "s3:GetObject", TRANSCRIBE_UNREDACTED)).toBe(true);
    expect(await may(roles.transcribe, "s3:GetObject", TRANSCRIBE_REDACTED)).toBe(true);
  });

  it("denies it to every role without the grant", async () => {
    const without = DEPLOYED_FUNCTIONS.filter((fn) => fn !== "reason" && fn !== "transcribe");
    expect(without.length).toBeGreaterThan(5);
    for (const fn of without) {
      expect(await may(roles[fn], "s3:GetObject", UNREDACTED_TRANSCRIPT), fn).toBe(false);
      expect(await may(roles[fn], "s3:GetObject", TRANSCRIBE_UNREDACTED), fn).toBe(false);
    }
  });

  it("lets Transcribe's data-access role write both output documents only where the stage redacts", async () => {
    const redacting = role(
      "data-access",
      transcribeDataAccessPermissions({ partition: "aws", bucket, redacts: true }),
    );
    const plain = role("data-access", transcribeDataAccessPermissions({ partition: "aws", bucket }));
    expect(await may(redacting, "s3:PutObject", TRANSCRIBE_UNREDACTED)).toBe(true);
    expect(await may(redacting, "s3:PutObject", TRANSCRIBE_REDACTED)).toBe(true);
    expect(await may(redacting, "s3:GetObject", UNREDACTED_TRANSCRIPT)).toBe(false);
    expect(await may(plain, "s3:PutObject", TRANSCRIBE_REDACTED)).toBe(false);
  });

  it("grants nothing new to a stage that does not redact", async () => {
    for (const fn of DEPLOYED_FUNCTIONS) {
      if (fn === "reason") continue;
      expect(stagePermissions(fn, targets(true)), fn).toEqual(
        fn === "transcribe" ? expect.anything() : stagePermissions(fn, targets(false)),
      );
    }
    expect(
      await may(
        role("reason", stagePermissions("reason", targets(false))),
        "s3:PutObject",
        REDACTED_TRANSCRIPT,
      ),
    ).toBe(false);
  });
});
