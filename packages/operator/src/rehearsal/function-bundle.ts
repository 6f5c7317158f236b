import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { FUNCTION_ESBUILD_OPTIONS, FUNCTION_ESM_BANNER } from "@voxtrail/workflow";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../../../..");
const RUNTIME_ENTRY = join(import.meta.dirname, "function-process.ts");
/** Where the built files would go: nothing is written there, the outputs are kept in memory. */
const OUT_DIR = join(ROOT, ".rehearsal-bundles");

/** What an execution environment of the rehearsal runs: the runtime's entry and the function's bundle. */
export interface TaskRootBundle {
  /** function-process.ts, built to plain JavaScript: no TypeScript loader in the environment. */
  runtime: string;
  /** The handler's module as sst bundles it for the function. */
  handler: string;
}

/** The built code of a stage's functions, in memory: the runtime's entry, and each handler's bundle. */
export interface HandlerBundles {
  runtime: Uint8Array;
  /** By handler (`packages/functions/src/lambda/ingest.handler`). */
  handlers: ReadonlyMap<string, Uint8Array>;
}

/**
 * Builds every handler's module (`packages/functions/src/lambda/ingest.handler`: the part before
 * the last dot) as sst builds a function (`FUNCTION_ESBUILD_OPTIONS`, its ESM banner), and the
 * rehearsal's runtime entry, once for all of a stage's functions. The handlers are one esbuild
 * build with an entry each: with no code splitting, each output is the bundle a build of that
 * entry alone makes, byte for byte, but the modules they share are read and parsed once.
 *
 * @example
 * const bundles = await buildHandlerBundles(plan.functions.map((fn) => fn.handler));
 */
export async function buildHandlerBundles(handlers: readonly string[]): Promise<HandlerBundles> {
  const distinct = [...new Set(handlers)];
  const entryName = (index: number) => `function-${index}/index`;
  const [built, runtime] = await Promise.all([
    build({
      ...FUNCTION_ESBUILD_OPTIONS,
      absWorkingDir: ROOT,
      entryPoints: Object.fromEntries(
        distinct.map((handler, index) => [
          entryName(index),
          `${handler.slice(0, handler.lastIndexOf("."))}.ts`,
        ]),
      ),
      outdir: OUT_DIR,
      outExtension: { ".js": ".mjs" },
      banner: { js: FUNCTION_ESM_BANNER },
      write: false,
      logLevel: "silent",
    }),
    build({
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      entryPoints: [RUNTIME_ENTRY],
      outfile: join(OUT_DIR, "runtime.mjs"),
      write: false,
      logLevel: "silent",
    }),
  ]);
  const [runtimeFile] = runtime.outputFiles;
  if (!runtimeFile) throw new Error("esbuild wrote no runtime entry");
  const contents = new Map(built.outputFiles.map((file) => [file.path, file.contents]));
  const bundled = new Map<string, Uint8Array>();
  distinct.forEach((handler, index) => {
    const code = contents.get(join(OUT_DIR, `${entryName(index)}.mjs`));
    if (code) bundled.set(handler, code);
  });
  return { runtime: runtimeFile.contents, handlers: bundled };
}

/**
 * Writes `handler`'s bundle into `taskRoot`, beside the rehearsal's runtime entry, so each
 * environment starts the way a Lambda one does: Node importing one bundled file from its task root.
 *
 * @example
 * const { runtime, handler } = await writeTaskRootBundle(bundles, "packages/functions/src/lambda/ingest.handler", taskRoot);
 */
export async function writeTaskRootBundle(
  bundles: HandlerBundles,
  handler: string,
  taskRoot: string,
): Promise<TaskRootBundle> {
  const code = bundles.handlers.get(handler);
  if (!code) throw new Error(`no bundle was built for ${handler}`);
  const bundle = { runtime: join(taskRoot, "runtime.mjs"), handler: join(taskRoot, "index.mjs") };
  await Promise.all([writeFile(bundle.runtime, bundles.runtime), writeFile(bundle.handler, code)]);
  return bundle;
}
