/**
 * @voxtrail/functions/lambda: how the Lambda entry points build their dependencies from the
 * function's environment.
 */
export { EMBEDDED_IN_LAMBDA, lambdaDependencies } from "./lambda-dependencies";
