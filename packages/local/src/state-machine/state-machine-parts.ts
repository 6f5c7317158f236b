/**
 * `@voxtrail/local/state-machine`: the parts of the local state-machine runner that run a deployed
 * stage's workflow elsewhere (the rehearsal's Step Functions stand-in and its service integrations).
 */
export { RunningExecutions } from "./running-executions";
export { TaskTokens } from "./task-tokens";
