import type { runtime } from "@pulumi/pulumi";
import { MOCK_ACCOUNT, MOCK_REGION, mockArn, type RegisteredResource } from "./evaluation";

/**
 * Pulumi mocks for the AWS resources the stacks create: each resource's state is its inputs plus
 * the outputs the stacks read (`arn`, `name`, `bucket`, random bytes), derived from its logical
 * name so tests can predict them; the provider functions the components call (partition, region,
 * caller identity, IAM policy documents) answer as AWS would. Every registration is recorded.
 */
export function awsMocks(registered: RegisteredResource[]): runtime.Mocks {
  return {
    newResource({ type, name, inputs }) {
      registered.push({ type, name, inputs: withoutSecretMarkers(inputs) as Record<string, unknown> });
      return { id: `${name}-id`, state: { ...inputs, ...outputsOf(type, name, inputs) } };
    },
    call({ token, inputs }) {
      switch (token) {
        case "aws:index/getPartition:getPartition":
          return { partition: "aws", dnsSuffix: "amazonaws.com", id: "aws" };
        case "aws:index/getRegion:getRegion":
          return { name: MOCK_REGION, region: MOCK_REGION, id: MOCK_REGION };
        case "aws:index/getCallerIdentity:getCallerIdentity":
          return { accountId: MOCK_ACCOUNT, arn: `arn:aws:iam::${MOCK_ACCOUNT}:user/mock`, userId: "mock" };
        case "aws:iam/getPolicyDocument:getPolicyDocument":
          return { ...inputs, json: JSON.stringify(policyDocument(inputs)) };
        default:
          throw new Error(`no mock for provider function ${token}`);
      }
    },
  };
}

/** The signature key Pulumi's RPC layer wraps a secret value in (`{[SECRET_SIGNATURE]: SECRET_VALUE, value}`). */
const SECRET_SIGNATURE = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/**
 * A resource's inputs with every secret wrapper replaced by the value it wraps: under mocks, an
 * output that depends on a linked secret (a function ARN, and everything built from it) arrives
 * wrapped. Whether Pulumi shows a value is not what the tests check; what the value is, is.
 */
function withoutSecretMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecretMarkers);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  if (record[SECRET_SIGNATURE] === SECRET_VALUE) return withoutSecretMarkers(record.value);
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, withoutSecretMarkers(item)]));
}

function outputsOf(type: string, name: string, inputs: Record<string, unknown>): Record<string, unknown> {
  if (type === "random:index/randomBytes:RandomBytes") {
    return { base64: Buffer.alloc(Number(inputs.length ?? 32), 1).toString("base64") };
  }
  if (type === "aws:s3/bucket:Bucket" || type === "aws:s3/bucketV2:BucketV2") {
    const bucket = typeof inputs.bucket === "string" ? inputs.bucket : `${name.toLowerCase()}-mock`;
    return { bucket, id: bucket, arn: mockArn(type, bucket), bucketDomainName: `${bucket}.s3.amazonaws.com` };
  }
  const physical = typeof inputs.name === "string" ? inputs.name : name;
  return { name: physical, arn: mockArn(type, physical) };
}

interface StatementInput {
  sid?: string;
  effect?: string;
  actions?: string[];
  resources?: string[];
  principals?: Array<{ type: string; identifiers: string[] }>;
  conditions?: Array<{ test: string; variable: string; values: string[] }>;
}

/** What `aws.iam.getPolicyDocument` returns for the statements it is given. */
function policyDocument(inputs: { statements?: StatementInput[] }): unknown {
  return {
    Version: "2012-10-17",
    Statement: (inputs.statements ?? []).map((s) => ({
      ...(s.sid ? { Sid: s.sid } : {}),
      Effect: s.effect ?? "Allow",
      ...(s.actions ? { Action: s.actions } : {}),
      ...(s.resources ? { Resource: s.resources } : {}),
      ...(s.principals
        ? { Principal: Object.fromEntries(s.principals.map((p) => [p.type, p.identifiers])) }
        : {}),
      ...(s.conditions
        ? {
            Condition: Object.fromEntries(s.conditions.map((c) => [c.test, { [c.variable]: c.values }])),
          }
        : {}),
    })),
  };
}
