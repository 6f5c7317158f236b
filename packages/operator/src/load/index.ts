/**
 * `@voxtrail/operator/load`: production's voicemail workflow under load, on a virtual clock, with
 * simulated engines behind the quota-enforcing stand-ins (docs/load-rehearsal.md).
 */
export { BEFORE_WAITING_RETRY, beforeWaiting, withOneRetry } from "./before-waiting";
export { type DeliveryRetryPolicy, EVENTBRIDGE_RETRY } from "./eventbridge-delivery";
export { type GateUse, LAMBDA_THROTTLED, type LambdaConcurrency } from "./lambda-gates";
export { type LoadLineageCheck, signAndVerifyLineage } from "./load-lineage";
export {
  type Arrival,
  DEFAULT_GENERATION_TIME,
  DEFAULT_JOB_RUN_TIME,
  type LoadQuotas,
  productionLoadQuotas,
} from "./load-options";
export { humanSummary, type LoadReport, loadReport } from "./load-report";
export { type LoadRunOptions, type LoadRunResult, runLoad, type VoicemailOutcome } from "./load-run";
