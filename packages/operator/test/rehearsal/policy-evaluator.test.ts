import { describe, expect, it } from "vitest";
import { PolicyEvaluator } from "../../src/rehearsal/policy-evaluator";
import type { PolicyDocument, RolePlan } from "../../src/rehearsal/stage-plan";

const account = "123456789012";
const keyArn = `arn:aws:kms:us-east-1:${account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;

/** A role whose own policy allows signing with the key. */
const signer: RolePlan = {
  logicalName: "SignerRole",
  arn: `arn:aws:iam::${account}:role/signer`,
  trustPolicy: {
    Version: "2012-10-17",
    Statement: [
      { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
    ],
  },
  managedPolicies: [],
  policies: [
    {
      name: "inline",
      document: {
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Action: ["kms:Sign"], Resource: [keyArn] }],
      },
    },
  ],
};

/** KMS's default key policy: the account's IAM policies decide. */
const trustsTheAccount: PolicyDocument = {
  Version: "2012-10-17",
  Statement: [
    {
      Effect: "Allow",
      Principal: { AWS: `arn:aws:iam::${account}:root` },
      Action: "kms:*",
      Resource: "*",
    },
  ],
};

/** A key policy that names one other role and does not trust the account. */
const trustsAnotherRole: PolicyDocument = {
  Version: "2012-10-17",
  Statement: [
    {
      Effect: "Allow",
      Principal: { AWS: `arn:aws:iam::${account}:role/someone-else` },
      Action: "kms:*",
      Resource: "*",
    },
  ],
};

const sign = (keyPolicy: PolicyDocument) =>
  new PolicyEvaluator({
    account,
    bucket: "b",
    bucketPolicy: undefined,
    keyPolicies: { [keyArn]: keyPolicy },
  }).authorize({ role: signer, action: "kms:Sign", resource: keyArn });

describe("the rehearsal's IAM evaluation of a KMS key", () => {
  it("honours the role's own statement where the key policy trusts the account", async () => {
    expect(await sign(trustsTheAccount)).toMatchObject({
      allowed: true,
      statement: { policy: "inline", index: 1 },
    });
  });

  it("refuses the role's own statement where the key policy does not trust the account, as KMS does", async () => {
    expect(await sign(trustsAnotherRole)).toMatchObject({ allowed: false });
  });
});

describe("the rehearsal's IAM evaluation of a service assuming a role", () => {
  const machine = `arn:aws:states:us-east-1:${account}:stateMachine:voicemail`;
  const role: RolePlan = {
    ...signer,
    trustPolicy: {
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Allow",
          Principal: { Service: "states.amazonaws.com" },
          Action: "sts:AssumeRole",
          Condition: {
            StringEquals: { "aws:SourceAccount": account },
            ArnEquals: { "aws:SourceArn": machine },
          },
        },
      ],
    },
  };
  const assume = (service: string, sourceAccount: string, sourceArn: string) =>
    new PolicyEvaluator({ account, bucket: "b", bucketPolicy: undefined }).assumeRole({
      role,
      service,
      context: { "aws:SourceAccount": sourceAccount, "aws:SourceArn": sourceArn },
    });

  it("lets the trusted service assume it for its own source, allowed by the trust policy", async () => {
    expect(await assume("states.amazonaws.com", account, machine)).toMatchObject({
      allowed: true,
      action: "sts:AssumeRole",
      resource: role.arn,
      statement: { policy: "trust policy", index: 1 },
    });
  });

  it("refuses another service, and the trusted one for another account or resource", async () => {
    expect(await assume("lambda.amazonaws.com", account, machine)).toMatchObject({
      allowed: false,
      refusal: "its trust policy does not let lambda.amazonaws.com assume it",
    });
    expect(await assume("states.amazonaws.com", "999999999999", machine)).toMatchObject({ allowed: false });
    expect(await assume("states.amazonaws.com", account, `${machine}-other`)).toMatchObject({
      allowed: false,
    });
  });
});
