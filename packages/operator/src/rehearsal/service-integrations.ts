import { HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { StageHandler } from "@voxtrail/functions";
import type { ExecutionResult } from "@voxtrail/local";
import { type AslDefinition, WAIT_FOR_TASK_TOKEN_LAMBDA } from "@voxtrail/workflow";
import type { FunctionHost } from "./function-host";
import type { Decision, PolicyEvaluator } from "./policy-evaluator";
import type { StateMachinePlan } from "./stage-plan";

/** The service integrations the stage's definitions use that are not a Lambda function. */
const INTEGRATIONS = {
  headObject: "arn:aws:states:::aws-sdk:s3:headObject",
  startExecutionSync: "arn:aws:states:::states:startExecution.sync:2",
} as const;

/** What answering a state machine's tasks needs. */
export interface IntegrationContext {
  evaluator: PolicyEvaluator;
  /** Records a decision Step Functions' role needed, under the state machine's name. */
  record: (principal: string, operation: string, decisions: Decision[]) => void;
  /** The functions by ARN. */
  hosts: ReadonlyMap<string, FunctionHost>;
  /** An S3 client signing as the state machine's role, through the authorizing proxy. */
  s3: S3Client;
  /** Called before each Lambda invocation, once authorized: the rehearsal may hold one back. */
  beforeInvoke?: (functionArn: string) => Promise<void>;
  /** Runs an execution of the state machine `arn` (a `.sync` child) to its end. */
  runChild: (stateMachineArn: string, input: unknown) => Promise<ExecutionResult>;
}

/** An error named as Step Functions names it (`Error` in the state's failure). */
export class IntegrationError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/**
 * The local handlers for every Task resource of a state machine, each answered as Step Functions
 * does and each authorized first with the state machine's role, with the actions AWS documents for
 * the integration: `lambda:InvokeFunction` for a Lambda task; `s3:GetObject` for
 * `aws-sdk:s3:headObject` (HeadObject API reference: HEAD needs GetObject), sent through the
 * proxy as the role; `states:StartExecution` on the child and `states:DescribeExecution` on its
 * execution for `startExecution.sync:2` ("IAM policies for AWS Step Functions", synchronous,
 * https://docs.aws.amazon.com/step-functions/latest/dg/stepfunctions-iam.html; its
 * `states:StopExecution` is {@link stopSyncChildren}'s and its managed rule's `events:` actions
 * {@link createStateMachine}'s); `lambda:InvokeFunction` on the function a
 * `lambda:invoke.waitForTaskToken` Task names (the Lambda integration needs it whatever its
 * pattern; the wait itself is the local engine's, resumed through the Step Functions stand-in's
 * `SendTaskSuccess`).
 *
 * @example
 * new LocalStateMachine(plan.name, definition, taskHandlers(plan, definition, context), executions);
 */
export function taskHandlers(
  machine: StateMachinePlan,
  definition: AslDefinition,
  context: IntegrationContext,
): Record<string, StageHandler<unknown>> {
  const handlers: Record<string, StageHandler<unknown>> = {};
  for (const resource of taskResources(definition.States)) {
    if (resource === INTEGRATIONS.headObject)
      handlers[resource] = (input) => headObject(machine, context, input);
    else if (resource === INTEGRATIONS.startExecutionSync)
      handlers[resource] = (input) => startExecutionSync(machine, context, input);
    else if (resource === WAIT_FOR_TASK_TOKEN_LAMBDA) {
      // The local engine invokes the callback Task's FunctionName through that function's handler.
      for (const functionArn of callbackFunctions(definition.States))
        handlers[functionArn] = (input) => invokeFunction(machine, context, functionArn, input);
    } else if (resource.startsWith("arn:aws:lambda:"))
      handlers[resource] = (input) => invokeFunction(machine, context, resource, input);
    else throw new Error(`${machine.name}: the rehearsal does not answer ${resource}`);
  }
  return handlers;
}

/**
 * Authorizes one request as the state machine's role, records it, and throws the error Step
 * Functions raises for the integration (`errorName`) when the role may not make it.
 */
async function authorize(
  machine: StateMachinePlan,
  context: IntegrationContext,
  operation: string,
  errorName: string,
  request: { action: string; resource: string },
): Promise<void> {
  const decision = await context.evaluator.authorize({ role: machine.role, ...request });
  context.record(machine.name, operation, [decision]);
  if (!decision.allowed) {
    throw new IntegrationError(
      errorName,
      `${machine.role.logicalName} is not authorized to perform: ${request.action} on resource: ${request.resource}`,
    );
  }
}

async function invokeFunction(
  machine: StateMachinePlan,
  context: IntegrationContext,
  functionArn: string,
  input: unknown,
): Promise<unknown> {
  await authorize(machine, context, "lambda:Invoke", "Lambda.AWSLambdaException", {
    action: "lambda:InvokeFunction",
    resource: functionArn,
  });
  await context.beforeInvoke?.(functionArn);
  const host = context.hosts.get(functionArn);
  if (!host)
    throw new IntegrationError("Lambda.ResourceNotFoundException", `Function not found: ${functionArn}`);
  return host.invoke(input);
}

async function headObject(machine: StateMachinePlan, context: IntegrationContext, input: unknown) {
  const { Bucket, Key } = input as { Bucket: string; Key: string };
  context.record(machine.name, "s3:headObject (aws-sdk integration, sent through the proxy)", []);
  try {
    const head = await context.s3.send(new HeadObjectCommand({ Bucket, Key }));
    return {
      ETag: head.ETag,
      VersionId: head.VersionId,
      ContentLength: head.ContentLength,
      ContentType: head.ContentType,
    };
  } catch (error) {
    // aws-sdk integrations name modeled exceptions `S3.<Name>Exception` and anything unmodeled (a
    // 403 among them) `S3.S3Exception`. For HeadObject's 404 the name is unconfirmed: the rule
    // would give `S3.NotFoundException`; reports of real executions say `S3.NoSuchKeyException`,
    // which the batch workflow's tests expect too. Its Catch takes States.ALL either way.
    const name = (error as Error).name;
    throw new IntegrationError(
      name === "NotFound" || name === "NoSuchKey" ? "S3.NoSuchKeyException" : "S3.S3Exception",
      `${name} (Service: S3, Status Code: ${(error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode})`,
    );
  }
}

async function startExecutionSync(machine: StateMachinePlan, context: IntegrationContext, input: unknown) {
  const { StateMachineArn, Input } = input as { StateMachineArn: string; Input: unknown };
  const denied = "StepFunctions.AccessDeniedException";
  await authorize(machine, context, "states:startExecution.sync:2", denied, {
    action: "states:StartExecution",
    resource: StateMachineArn,
  });
  const child = await context.runChild(StateMachineArn, Input);
  await authorize(machine, context, "states:startExecution.sync:2 (wait)", denied, {
    action: "states:DescribeExecution",
    resource: child.executionArn,
  });
  if (child.status === "FAILED")
    throw new IntegrationError("States.TaskFailed", `${child.error}: ${child.cause}`);
  if (child.status === "ABORTED")
    throw new IntegrationError("States.TaskFailed", "the execution was aborted");
  return { ExecutionArn: child.executionArn, Status: "SUCCEEDED", Output: JSON.stringify(child.output) };
}

/** The rule Step Functions manages for `.sync` integrations with Step Functions itself. */
const SYNC_EXECUTION_RULE = "StepFunctionsGetEventsForStepFunctionsExecutionRule";

/**
 * What Step Functions asks of the state machine's role when the state machine is created or
 * updated (as the stage deploys it), recorded under its name: for a definition that runs another
 * state machine with `startExecution.sync:2`, the EventBridge rule it manages to learn when those
 * executions end, `events:DescribeRule`, `events:PutRule` and `events:PutTargets` on
 * `rule/StepFunctionsGetEventsForStepFunctionsExecutionRule` ("IAM policies for AWS Step
 * Functions", synchronous, https://docs.aws.amazon.com/step-functions/latest/dg/stepfunctions-iam.html).
 * That it is asked at creation, not per execution: a role without them fails CreateStateMachine
 * with "is not authorized to create managed-rule" (nasa/cumulus#2693,
 * terraform-aws-modules/terraform-aws-step-functions#41). A definition with no such task asks nothing.
 */
export async function createStateMachine(
  machine: StateMachinePlan,
  context: Pick<IntegrationContext, "evaluator" | "record">,
): Promise<Decision[]> {
  if (!taskResources(machine.definition.States).includes(INTEGRATIONS.startExecutionSync)) return [];
  const [, , , region, account] = machine.arn.split(":");
  const rule = `arn:aws:events:${region}:${account}:rule/${SYNC_EXECUTION_RULE}`;
  const decisions = await Promise.all(
    ["events:DescribeRule", "events:PutRule", "events:PutTargets"].map((action) =>
      context.evaluator.authorize({ role: machine.role, action, resource: rule }),
    ),
  );
  context.record(machine.name, "CreateStateMachine: the managed rule of startExecution.sync:2", decisions);
  return decisions;
}

/**
 * What Step Functions asks of the role when an execution waiting on `startExecution.sync:2` is
 * stopped: it stops each child execution still running (`states:StopExecution` on the child's
 * execution, "IAM policies for AWS Step Functions", synchronous), recorded under the state
 * machine's name. `running` gives the running executions of a state machine, by name.
 */
export async function stopSyncChildren(
  machine: StateMachinePlan,
  context: Pick<IntegrationContext, "evaluator" | "record">,
  running: (stateMachineName: string) => string[],
): Promise<Decision[]> {
  const children = syncTargets(machine.definition.States).flatMap((arn) => running(arn.split(":")[6] ?? ""));
  const decisions = await Promise.all(
    children.map((resource) =>
      context.evaluator.authorize({ role: machine.role, action: "states:StopExecution", resource }),
    ),
  );
  if (decisions.length > 0)
    context.record(machine.name, "StopExecution: its startExecution.sync:2 executions stopped", decisions);
  return decisions;
}

/** The state machines a definition runs with `startExecution.sync:2`, by ARN, at any depth. */
function syncTargets(states: AslDefinition["States"]): string[] {
  return Object.values(states).flatMap((state): string[] => {
    if (state.Type === "Task" && state.Resource === INTEGRATIONS.startExecutionSync)
      return [String((state.Parameters as { StateMachineArn?: string } | undefined)?.StateMachineArn)];
    const nested = [
      state.ItemProcessor ?? state.Iterator,
      ...((state.Branches as unknown[] | undefined) ?? []),
    ] as Array<{ States?: AslDefinition["States"] } | undefined>;
    return nested.flatMap((machine) => (machine?.States ? syncTargets(machine.States) : []));
  });
}

/** The functions the definition's `lambda:invoke.waitForTaskToken` Tasks invoke, by ARN. */
function callbackFunctions(states: AslDefinition["States"]): string[] {
  return Object.values(states).flatMap((state) =>
    state.Type === "Task" && state.Resource === WAIT_FOR_TASK_TOKEN_LAMBDA
      ? [String((state.Parameters as { FunctionName?: string } | undefined)?.FunctionName)]
      : [],
  );
}

/** Every Task state's Resource, at any depth (Map item processors, Parallel branches). */
function taskResources(states: AslDefinition["States"]): string[] {
  return Object.values(states).flatMap((state): string[] => {
    if (state.Type === "Task") return [String(state.Resource)];
    const nested = [
      state.ItemProcessor ?? state.Iterator,
      ...((state.Branches as unknown[] | undefined) ?? []),
    ] as Array<{ States?: AslDefinition["States"] } | undefined>;
    return nested.flatMap((machine) => (machine?.States ? taskResources(machine.States) : []));
  });
}
