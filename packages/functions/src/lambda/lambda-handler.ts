import type { KernelDependencies, StageDefinition } from "../kernel/stage-definition";
import { type StageHandler, stageHandler } from "../kernel/stage-handler";
import { builtOnce } from "./built-once";

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
  const handler = builtOnce(async () => stageHandler(definition, await dependencies(process.env)));
  return async (event, context) => (await handler())(event, context);
}
