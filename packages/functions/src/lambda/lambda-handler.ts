import { builtOnce } from "@voxtrail/core";
import type { KernelDependencies, StageDefinition } from "../kernel/stage-definition";
import { type StageHandler, stageHandler } from "../kernel/stage-handler";

/**
 * A stage's handler in Lambda: its dependencies built from the environment on the first
 * invocation and reused by the invocations after it (a failed build is not kept: the next
 * invocation builds again), then the kernel's handler for `definition`.
 *
 * @example
 * export const handler = lambdaHandler(transcribeStage, (env) => lambdaDependencies(env, { transcriber: cloudTranscriber }));
 */
export function lambdaHandler<D extends KernelDependencies, I, O, C>(
  definition: StageDefinition<D, I, O, C>,
  dependencies: (env: NodeJS.ProcessEnv) => Promise<D>,
): StageHandler<O> {
  return lambdaEntry(async (env) => stageHandler(definition, await dependencies(env)));
}

/**
 * A Lambda handler built from the environment on the first invocation and reused after it (a
 * failed build is not kept): for a function whose handler depends on what the stage configured.
 *
 * @example
 * export const handler = lambdaEntry(async (env) => stageHandler(transcribeStage, await lambdaDependencies(env, builders)));
 */
export function lambdaEntry<O>(build: (env: NodeJS.ProcessEnv) => Promise<StageHandler<O>>): StageHandler<O> {
  const handler = builtOnce(() => build(process.env));
  return async (event, context) => (await handler())(event, context);
}
