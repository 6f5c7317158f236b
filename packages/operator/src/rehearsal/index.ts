/**
 * `@voxtrail/operator/rehearsal`: a stage's workflows under the policies it deploys, without AWS
 * (`npm run rehearse`), and what the stack tests share with it: the stacks evaluated under Pulumi
 * mocks. (Its moto_server, which the test suite starts too, is `@voxtrail/operator/moto-server`.)
 */
export { evaluateStacks } from "./evaluate-stacks";
export {
  REHEARSED_WORKFLOWS,
  Rehearsal,
  type RehearsalOptions,
  type RehearsalReport,
  type RehearsedRun,
  type RehearsedWorkflow,
  runUpTo,
  type StatementRef,
} from "./rehearsal";
export { evaluateStage } from "./stage-evaluation";
export type { StagePlan } from "./stage-plan";
