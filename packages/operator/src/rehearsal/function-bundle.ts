import { join, resolve } from "node:path";
import { FUNCTION_ESBUILD_OPTIONS, FUNCTION_ESM_BANNER } from "@voxtrail/workflow";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../../../..");
const RUNTIME_ENTRY = join(import.meta.dirname, "function-process.ts");

/** What an execution environment of the rehearsal runs: the runtime's entry and the function's bundle. */
export interface TaskRootBundle {
  /** function-process.ts, built to plain JavaScript: no TypeScript loader in the environment. */
  runtime: string;
  /** The handler's module as sst bundles it for the function. */
  handler: string;
}

/**
 * Builds `handler`'s module (`packages/functions/src/lambda/ingest.handler`: the part before the
 * last dot) into `taskRoot` as sst builds a function (`FUNCTION_ESBUILD_OPTIONS`, its ESM banner),
 * beside the rehearsal's runtime entry, so each environment starts the way a Lambda one does: Node
 * importing one bundled file from its task root.
 *
 * @example
 * const { runtime, handler } = await buildTaskRootBundle("packages/functions/src/lambda/ingest.handler", taskRoot);
 */
export async function buildTaskRootBundle(handler: string, taskRoot: string): Promise<TaskRootBundle> {
  const bundle = { runtime: join(taskRoot, "runtime.mjs"), handler: join(taskRoot, "index.mjs") };
  await Promise.all([
    build({
      ...FUNCTION_ESBUILD_OPTIONS,
      absWorkingDir: ROOT,
      entryPoints: [`${handler.slice(0, handler.lastIndexOf("."))}.ts`],
      outfile: bundle.handler,
      banner: { js: FUNCTION_ESM_BANNER },
      logLevel: "silent",
    }),
    build({
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      entryPoints: [RUNTIME_ENTRY],
      outfile: bundle.runtime,
      logLevel: "silent",
    }),
  ]);
  return bundle;
}
