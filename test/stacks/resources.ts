import { expect } from "vitest";
import { type Evaluation, mockArn } from "../../stacks/mocks/evaluation";
import type { DeployedFunction } from "../../stacks/permissions";

/** The logical name of each deployed function's sst.aws.Function. */
export const COMPONENT: Record<DeployedFunction, string> = {
  ingest: "StageIngest",
  transcribe: "StageTranscribe",
  reason: "StageReason",
  synthesize: "StageSynthesize",
  finalize: "StageFinalize",
  recordFailure: "StageRecordFailure",
  preparePrompts: "PromptPreparePrompts",
  synthesizePrompt: "PromptSynthesizePrompt",
  recordPromptFailure: "PromptRecordPromptFailure",
  writePromptsReport: "PromptWritePromptsReport",
  openBatch: "BatchOpenBatch",
};

/** A registered resource's resolved inputs. */
export type Inputs = Record<string, unknown>;

/** The inputs of the one resource of `type` named `name` (fails the test unless there is exactly one). */
export function resource(evaluation: Evaluation, type: string, name: string): Inputs {
  const found = evaluation.resources.filter((r) => r.type === type && r.name === name);
  expect(found, `${type} ${name}`).toHaveLength(1);
  return found[0]?.inputs as Inputs;
}

/** The inputs of every resource of `type`. */
export function ofType(evaluation: Evaluation, type: string): Inputs[] {
  return evaluation.resources.filter((r) => r.type === type).map((r) => r.inputs);
}

/** The Lambda function of a deployed function. */
export function lambdaOf(evaluation: Evaluation, fn: DeployedFunction): Inputs {
  return resource(evaluation, "aws:lambda/function:Function", `${COMPONENT[fn]}Function`);
}

/** The environment variables of a deployed function. */
export function variablesOf(evaluation: Evaluation, fn: DeployedFunction): Record<string, string> {
  return (lambdaOf(evaluation, fn).environment as { variables: Record<string, string> }).variables;
}

/** The statements of the inline policies of a deployed function's role. */
export function roleStatements(evaluation: Evaluation, fn: DeployedFunction): unknown[] {
  const roleName = (lambdaOf(evaluation, fn).role as string).split("/").pop();
  const roles = evaluation.resources.filter(
    (r) => r.type === "aws:iam/role:Role" && r.inputs.name === roleName,
  );
  expect(roles).toHaveLength(1);
  const policies = (roles[0]?.inputs.inlinePolicies ?? []) as Array<{ policy: string }>;
  return policies.flatMap((p) => JSON.parse(p.policy).Statement);
}

/** The statements of every inline policy of the role named `name` (a role the stacks create by hand). */
export function inlineStatements(evaluation: Evaluation, name: string): unknown[] {
  const role = resource(evaluation, "aws:iam/role:Role", name);
  return (role.inlinePolicies as Array<{ policy: string }>).flatMap((p) => JSON.parse(p.policy).Statement);
}

/** The ARN the mocks give the Lambda function of a deployed function. */
export function functionArnOf(evaluation: Evaluation, fn: DeployedFunction): string {
  return mockArn("aws:lambda/function:Function", lambdaOf(evaluation, fn).name as string);
}
