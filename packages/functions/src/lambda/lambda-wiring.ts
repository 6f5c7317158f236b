/**
 * `@voxtrail/functions/lambda`: what a deployed function builds around its handler (its providers,
 * store and job-claim liveness), for the checks that the stacks give it what it needs.
 */
export { StepFunctionsLiveness } from "../claims/step-functions-liveness";
export { EMBEDDED_IN_LAMBDA, lambdaDependencies } from "./lambda-dependencies";
