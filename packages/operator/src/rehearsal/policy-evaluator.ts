import {
  getGrantReasons,
  type RunSimulationResults,
  runSimulation,
  type Simulation,
} from "@cloud-copilot/iam-simulate";
import type { PolicyDocument, RolePlan } from "./stage-plan";

/** One request as IAM sees it: who, which action, on which resource, with which context keys. */
export interface AuthorizationRequest {
  role: RolePlan;
  action: string;
  resource: string;
  /** Condition keys the service supplies (`s3:prefix`, ...); strings, as IAM compares them. */
  context?: Record<string, string | string[]>;
}

/**
 * A service assuming a role: the service principal, and what it tells IAM of the request it acts
 * for (`aws:SourceAccount`, `aws:SourceArn`), as the role's trust policy is evaluated with it.
 */
export interface AssumeRoleRequest {
  role: RolePlan;
  /** `lambda.amazonaws.com`, `states.amazonaws.com`, ... */
  service: string;
  context?: Record<string, string>;
}

/** The statement that allowed a request: the role's policy, its 1-based index there, its Sid. */
export interface AllowingStatement {
  policy: string;
  index: number;
  sid?: string | undefined;
}

/** IAM's answer to one request. */
export interface Decision {
  role: string;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  allowed: boolean;
  /** Set when allowed by one of the role's statements. */
  statement?: AllowingStatement;
  /** Why a request was refused: no statement allows it, a Deny matched, or the request was malformed. */
  refusal?: string;
}

/**
 * Evaluates requests against the exact policy documents a stage deploys, as IAM would: the role's
 * identity policies (inline, and the AWS managed policies attached to it) and, for the stage's own
 * bucket, the bucket policy (TLS only, lineage protection); and a service's `sts:AssumeRole` of a
 * role against the role's trust policy. Uses `@cloud-copilot/iam-simulate` (AGPL-3.0: a development dependency of the
 * rehearsal only, never shipped) in its strict mode, which also checks that the action exists
 * in AWS's Service Authorization Reference and that the resource ARN is of a type the action
 * takes. Every request carries what AWS would see of a Lambda or Step Functions session:
 * `aws:SecureTransport` true, the principal's ARN and account.
 *
 * @example
 * const iam = new PolicyEvaluator({ account, bucket, bucketPolicy });
 * const decision = await iam.authorize({ role, action: "s3:GetObject", resource: "arn:aws:s3:::b/k" });
 */
export class PolicyEvaluator {
  readonly #account: string;
  readonly #bucketArn: string;
  readonly #bucketPolicy: PolicyDocument | undefined;
  readonly #keyPolicies: ReadonlyMap<string, PolicyDocument>;

  constructor(options: {
    account: string;
    bucket: string;
    bucketPolicy: PolicyDocument | undefined;
    /** Each KMS key's key policy, by key ARN: KMS honours IAM policies only where its key policy says so. */
    keyPolicies?: Record<string, PolicyDocument>;
  }) {
    this.#account = options.account;
    this.#bucketArn = `arn:aws:s3:::${options.bucket}`;
    this.#bucketPolicy = options.bucketPolicy && normalizedPrincipals(options.bucketPolicy);
    this.#keyPolicies = new Map(Object.entries(options.keyPolicies ?? {}));
  }

  /** IAM's decision on `request`, made by the role's session. */
  async authorize(request: AuthorizationRequest): Promise<Decision> {
    const principal = sessionArn(request.role.arn, this.#account);
    const context = {
      "aws:SecureTransport": "true",
      "aws:PrincipalArn": request.role.arn,
      "aws:PrincipalAccount": this.#account,
      ...request.context,
    };
    const onBucket =
      request.resource === this.#bucketArn || request.resource.startsWith(`${this.#bucketArn}/`);
    const resourcePolicy = onBucket ? this.#bucketPolicy : this.#keyPolicies.get(request.resource);
    const simulation: Simulation = {
      identityPolicies: [...request.role.policies, ...request.role.managedPolicies].map((p) => ({
        name: p.name,
        policy: p.document,
      })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
      request: {
        principal,
        action: request.action,
        resource: { resource: request.resource, accountId: this.#account },
        contextVariables: context,
      },
    };
    const base = {
      role: request.role.logicalName,
      action: request.action,
      resource: request.resource,
      context: request.context ?? {},
    };
    return decision(base, await runSimulation(simulation, {}), {
      resourcePolicy: onBucket ? "bucket policy" : "key policy",
      noAllow: "no identity-based policy allows the action",
    });
  }

  /**
   * IAM's decision on `request.service` assuming the role: the role's trust policy is the resource
   * policy, the service principal holds no policy of its own, and the context is what the service
   * supplies.
   */
  async assumeRole(request: AssumeRoleRequest): Promise<Decision> {
    const context = request.context ?? {};
    const simulation: Simulation = {
      identityPolicies: [],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: request.role.trustPolicy,
      request: {
        principal: request.service,
        action: "sts:AssumeRole",
        resource: { resource: request.role.arn, accountId: this.#account },
        contextVariables: { "aws:SecureTransport": "true", ...context },
      },
    };
    const base = {
      role: request.role.logicalName,
      action: "sts:AssumeRole",
      resource: request.role.arn,
      context,
    };
    return decision(base, await runSimulation(simulation, {}), {
      resourcePolicy: "trust policy",
      noAllow: `its trust policy does not let ${request.service} assume it`,
    });
  }
}

/**
 * A simulation's result as a {@link Decision}: refused with why, or allowed with the statement
 * that allowed it, the role's own where one does (a key policy that trusts the account grants
 * alongside it), the resource policy's (`names.resourcePolicy`) only when none does.
 */
function decision(
  base: Omit<Decision, "allowed">,
  result: RunSimulationResults,
  names: { resourcePolicy: string; noAllow: string },
): Decision {
  if (result.resultType === "error") {
    return { ...base, allowed: false, refusal: `not a valid request: ${result.errors.message}` };
  }
  if (result.resultType !== "single") {
    return { ...base, allowed: false, refusal: "a wildcard resource is not a request" };
  }
  if (result.overallResult !== "Allowed") {
    return {
      ...base,
      allowed: false,
      refusal: result.overallResult === "ExplicitlyDenied" ? "an explicit Deny matches" : names.noAllow,
    };
  }
  const grants = getGrantReasons(result.result.analysis);
  const grant = grants.find((g) => g.policyType !== "resource") ?? grants[0];
  if (!grant) return { ...base, allowed: true };
  const policy = grant.policyType === "resource" ? names.resourcePolicy : grant.policyIdentifier;
  return {
    ...base,
    allowed: true,
    statement: { policy, index: grant.statementIndex, sid: grant.statementId },
  };
}

/** The ARN a role's session acts as (Lambda and Step Functions assume the role). */
function sessionArn(roleArn: string, account: string): string {
  const roleName = roleArn.split("/").pop();
  return `arn:aws:sts::${account}:assumed-role/${roleName}/rehearsal`;
}

/**
 * The bucket policy with `{"*": ["*"]}` principals written as `"*"`: the Pulumi mocks render
 * `aws.iam.getPolicyDocument`'s `{type: "*", identifiers: ["*"]}` literally, where AWS's data
 * source emits `"Principal": "*"`.
 */
function normalizedPrincipals(document: PolicyDocument): PolicyDocument {
  return {
    ...document,
    Statement: document.Statement.map((statement) => {
      const principal = statement.Principal as Record<string, unknown> | string | undefined;
      const everyone =
        typeof principal === "object" && JSON.stringify(principal) === JSON.stringify({ "*": ["*"] });
      return everyone ? { ...statement, Principal: "*" } : statement;
    }),
  };
}
