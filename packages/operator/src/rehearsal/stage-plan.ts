import type { AslDefinition } from "@voxtrail/workflow";
import { type Evaluation, MOCK_ACCOUNT, MOCK_REGION, mockArn } from "../../../../stacks/mocks/evaluation";
import { TRANSCRIBE_SERVICE } from "../../../../stacks/permissions";
import { managedPolicyDocument } from "./managed-policies";

/** An IAM policy document as a role holds it. */
export interface PolicyDocument {
  Version: string;
  Statement: Array<Record<string, unknown>>;
}

/** A named policy of a role: an inline policy's name, or a managed policy's ARN. */
export interface NamedPolicy {
  name: string;
  document: PolicyDocument;
}

/** A role the stacks create: its ARN, who may assume it, and the policies it holds, as deployed. */
export interface RolePlan {
  /** The role's logical name in the stacks (e.g. `StageIngestRole`). */
  logicalName: string;
  arn: string;
  /** Its trust policy (`assumeRolePolicy`): who may assume it, and on whose behalf. */
  trustPolicy: PolicyDocument;
  /** Its inline policies. */
  policies: NamedPolicy[];
  /** The AWS managed policies attached to it, each named by its ARN, its document the vendored one (managed-policies.ts). */
  managedPolicies: NamedPolicy[];
}

/** One Lambda function as the stacks deploy it. */
export interface FunctionPlan {
  /** The sst component's logical name (e.g. `StageIngest`). */
  component: string;
  name: string;
  arn: string;
  /** `packages/functions/src/lambda/ingest.handler`: module path and export. */
  handler: string;
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  /** The log group Lambda writes its output to (`/aws/lambda/<name>`, sst's). */
  logGroup: string;
  role: RolePlan;
  /** What sst's build encrypts into the bundle's `resource.enc` (linked resources), by name. */
  links: Record<string, unknown>;
}

/** One state machine as the stacks deploy it. */
export interface StateMachinePlan {
  logicalName: string;
  name: string;
  arn: string;
  definition: AslDefinition;
  role: RolePlan;
}

/**
 * One EventBridge rule and its target: a state machine EventBridge starts as the target's role,
 * or a Lambda function it invokes under the function's resource policy (no role), with what the
 * target is given instead of the event when an input transformer reshapes it.
 */
export interface RulePlan {
  logicalName: string;
  /** What EventBridge gives as `aws:SourceArn` (assuming the target's role, or invoking a function). */
  arn: string;
  pattern: unknown;
  targetArn: string;
  /** The target's role; absent for a Lambda function target. */
  role?: RolePlan;
  /** The target's input transformer, when it has one. */
  inputTransformer?: { inputPaths: Record<string, string>; inputTemplate: string };
}

/** A statement of a Lambda function's resource policy (`aws.lambda.Permission`). */
export interface InvokePermissionPlan {
  logicalName: string;
  /** The function, by name. */
  functionName: string;
  action: string;
  principal: string;
  /** The only source the principal may invoke it for (`aws:SourceArn`), when it names one. */
  sourceArn?: string;
}

/** One EventBridge Scheduler schedule and the function it invokes, as its role. */
export interface SchedulePlan {
  logicalName: string;
  /** `rate(1 hour)`, `cron(...)`. */
  expression: string;
  targetArn: string;
  /** The event the schedule invokes its target with. */
  input: unknown;
  /** Its schedule group's ARN: what EventBridge Scheduler gives as `aws:SourceArn` when it assumes the role. */
  groupArn: string;
  role: RolePlan;
}

/** A KMS key the stacks create: its ARN as the mocks name it (KMS assigns the real id at deploy). */
export interface KeyPlan {
  logicalName: string;
  arn: string;
  keySpec: string;
  keyUsage: string;
  /** Its key policy, evaluated with every request on the key as KMS does. */
  policy: PolicyDocument;
}

/**
 * The lineage index as Athena reads it: the Glue database and its tables (each with the location
 * template its partition projection gives a day), the workgroup, and the auditors' reader policy.
 */
export interface LineageIndexPlan {
  database: string;
  workgroup: string;
  /** Where the workgroup writes query results (its enforced `OutputLocation`), as a key prefix. */
  resultsPrefix: string;
  /** Each table's `storage.location.template` (`s3://bucket/.../day=${day}/`), by table name. */
  tables: Record<string, string>;
  /** The `LineageIndexReader` managed policy, as an auditor is given it. */
  readerPolicy: NamedPolicy;
}

/** Everything the rehearsal needs of a stage, read from the resources the stacks registered. */
export interface StagePlan {
  stage: string;
  account: string;
  region: string;
  bucket: string;
  /** The bucket policy document (TLS only, lineage protection), evaluated as S3 would. */
  bucketPolicy: PolicyDocument | undefined;
  outcomeBus: string;
  sonicEndpoint: string | undefined;
  functions: FunctionPlan[];
  stateMachines: StateMachinePlan[];
  rules: RulePlan[];
  /** The functions' resource policies: who else may invoke them. */
  invokePermissions: InvokePermissionPlan[];
  /**
   * Roles a service assumes to act on a principal's request, which the principal passes
   * (`iam:PassRole`): Amazon Transcribe's data-access role.
   */
  serviceRoles: RolePlan[];
  schedules: SchedulePlan[];
  keys: KeyPlan[];
  /** Absent when the stacks deploy no Glue database for the index. */
  lineageIndex: LineageIndexPlan | undefined;
}

/**
 * Every role the stage deploys (functions, state machines, rules, schedules, roles services
 * assume), by logical name.
 *
 * @example
 * rolesOf(plan).get("StageIngestRole")?.policies;
 */
export function rolesOf(plan: StagePlan): Map<string, RolePlan> {
  return new Map(
    plan.functions
      .map((f) => f.role)
      .concat(
        plan.stateMachines.map((m) => m.role),
        plan.rules.flatMap((r) => (r.role ? [r.role] : [])),
        plan.schedules.map((s) => s.role),
        plan.serviceRoles,
      )
      .map((role) => [role.logicalName, role]),
  );
}

type Inputs = Record<string, unknown>;

/**
 * Reads a stage out of an evaluation of the stacks under Pulumi mocks
 * (evaluate-stacks.ts): the exact policy documents, environments, definitions and
 * patterns the stacks would deploy, produced by the stacks' own code.
 *
 * @example
 * const plan = stagePlan("dev", await evaluateStacks("dev", secrets));
 * plan.functions.find((f) => f.component === "StageIngest")?.role.policies;
 */
export function stagePlan(stage: string, evaluation: Evaluation): StagePlan {
  const all = evaluation.resources;
  const ofType = (type: string) => all.filter((r) => r.type === type);
  const roles = ofType("aws:iam/role:Role").map((r) => rolePlan(r.name, r.inputs));
  const roleByArn = (arn: string) => {
    const role = roles.find((r) => r.arn === arn);
    if (!role) throw new Error(`the stacks register no role ${arn}`);
    return role;
  };
  const builds = new Map(
    evaluation.rpc
      .filter((call) => call.method === "Runtime.Build")
      .map((call) => {
        const args = call.args as { functionID: string; links?: Record<string, unknown> };
        return [args.functionID, args.links ?? {}] as const;
      }),
  );
  const functions = ofType("aws:lambda/function:Function").map((r): FunctionPlan => {
    const inputs = r.inputs;
    const component = r.name.replace(/Function$/, "");
    const name = String(inputs.name);
    const logGroup = (inputs.loggingConfig as { logGroup?: string } | undefined)?.logGroup;
    if (!logGroup) throw new Error(`the stacks give function ${component} no log group`);
    return {
      component,
      name,
      arn: mockArn(r.type, name),
      handler: String(inputs.handler),
      environment: ((inputs.environment as Inputs | undefined)?.variables ?? {}) as Record<string, string>,
      timeoutSeconds: Number(inputs.timeout),
      memoryMb: Number(inputs.memorySize),
      logGroup,
      role: roleByArn(String(inputs.role)),
      links: builds.get(component) ?? {},
    };
  });
  const stateMachines = ofType("aws:sfn/stateMachine:StateMachine").map((r) => ({
    logicalName: r.name,
    name: String(r.inputs.name),
    arn: mockArn(r.type, String(r.inputs.name)),
    definition: JSON.parse(String(r.inputs.definition)) as AslDefinition,
    role: roleByArn(String(r.inputs.roleArn)),
  }));
  const targets = ofType("aws:cloudwatch/eventTarget:EventTarget");
  const rules = ofType("aws:cloudwatch/eventRule:EventRule").map((r): RulePlan => {
    const target = targets.find((t) => t.inputs.rule === r.name);
    if (!target) throw new Error(`rule ${r.name} has no target`);
    const transformer = target.inputs.inputTransformer as RulePlan["inputTransformer"] | undefined;
    return {
      logicalName: r.name,
      arn: mockArn(r.type, typeof r.inputs.name === "string" ? r.inputs.name : r.name),
      pattern: JSON.parse(String(r.inputs.eventPattern)),
      targetArn: String(target.inputs.arn),
      ...(target.inputs.roleArn === undefined ? {} : { role: roleByArn(String(target.inputs.roleArn)) }),
      ...(transformer ? { inputTransformer: transformer } : {}),
    };
  });
  const invokePermissions = ofType("aws:lambda/permission:Permission").map(
    (r): InvokePermissionPlan => ({
      logicalName: r.name,
      functionName: String(r.inputs.function),
      action: String(r.inputs.action),
      principal: String(r.inputs.principal),
      ...(r.inputs.sourceArn === undefined ? {} : { sourceArn: String(r.inputs.sourceArn) }),
    }),
  );
  const serviceRoles = roles.filter((role) =>
    role.trustPolicy.Statement.some(
      (statement) =>
        (statement.Principal as { Service?: unknown } | undefined)?.Service === TRANSCRIBE_SERVICE,
    ),
  );
  const schedules = ofType("aws:scheduler/schedule:Schedule").map((r): SchedulePlan => {
    const target = r.inputs.target as { arn: string; roleArn: string; input?: string };
    return {
      logicalName: r.name,
      expression: String(r.inputs.scheduleExpression),
      targetArn: target.arn,
      input: JSON.parse(target.input ?? "{}"),
      groupArn: `arn:aws:scheduler:${MOCK_REGION}:${MOCK_ACCOUNT}:schedule-group/${String(r.inputs.groupName ?? "default")}`,
      role: roleByArn(target.roleArn),
    };
  });
  const keys = ofType("aws:kms/key:Key").map((r) => ({
    logicalName: r.name,
    arn: mockArn("aws:kms/key:Key", r.name),
    keySpec: String(r.inputs.customerMasterKeySpec ?? "SYMMETRIC_DEFAULT"),
    keyUsage: String(r.inputs.keyUsage ?? "ENCRYPT_DECRYPT"),
    policy: JSON.parse(String(r.inputs.policy ?? "{}")) as PolicyDocument,
  }));
  const bucketResource = ofType("aws:s3/bucket:Bucket")[0] ?? ofType("aws:s3/bucketV2:BucketV2")[0];
  if (!bucketResource) throw new Error("the stacks register no bucket");
  const bucketPolicy = ofType("aws:s3/bucketPolicy:BucketPolicy")[0]?.inputs.policy;
  const outputs = evaluation.outputs as { outcomeBus: string; sonicEndpoint?: string };
  const database = ofType("aws:glue/catalogDatabase:CatalogDatabase")[0];
  const workgroup = ofType("aws:athena/workgroup:Workgroup")[0];
  const reader = all.find((r) => r.type === "aws:iam/policy:Policy" && r.name === "LineageIndexReader");
  const lineageIndex =
    database && workgroup && reader
      ? {
          database: String(database.inputs.name),
          workgroup: String(workgroup.inputs.name),
          resultsPrefix: String(
            (workgroup.inputs.configuration as { resultConfiguration?: { outputLocation?: string } })
              .resultConfiguration?.outputLocation,
          ).replace(/^s3:\/\/[^/]+\//, ""),
          tables: Object.fromEntries(
            ofType("aws:glue/catalogTable:CatalogTable")
              .filter((t) => t.inputs.databaseName === database.inputs.name)
              .map((t) => [
                String(t.inputs.name),
                String((t.inputs.parameters as Inputs)["storage.location.template"]),
              ]),
          ),
          readerPolicy: {
            name: reader.name,
            document: JSON.parse(String(reader.inputs.policy)) as PolicyDocument,
          },
        }
      : undefined;
  return {
    stage,
    account: MOCK_ACCOUNT,
    region: MOCK_REGION,
    bucket: String(bucketResource.inputs.bucket),
    bucketPolicy: bucketPolicy ? (JSON.parse(String(bucketPolicy)) as PolicyDocument) : undefined,
    outcomeBus: outputs.outcomeBus,
    sonicEndpoint: outputs.sonicEndpoint,
    functions,
    stateMachines,
    rules,
    invokePermissions,
    serviceRoles,
    schedules,
    keys,
    lineageIndex,
  };
}

function rolePlan(logicalName: string, inputs: Inputs): RolePlan {
  const physical = typeof inputs.name === "string" ? inputs.name : logicalName;
  const inline = (inputs.inlinePolicies ?? []) as Array<{ name: string; policy: string }>;
  // A document given as an object (`aws.iam.assumeRolePolicyForPrincipal`) or as its JSON.
  const trust = inputs.assumeRolePolicy;
  return {
    logicalName,
    arn: mockArn("aws:iam/role:Role", physical),
    trustPolicy: (typeof trust === "string" ? JSON.parse(trust) : trust) as PolicyDocument,
    policies: inline.map((p) => ({ name: p.name, document: JSON.parse(p.policy) as PolicyDocument })),
    managedPolicies: ((inputs.managedPolicyArns ?? []) as string[]).map((arn) => ({
      name: arn,
      document: managedPolicyDocument(arn, logicalName),
    })),
  };
}
