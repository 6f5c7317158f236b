/**
 * How every Lambda function of the stage is built: sst's esbuild build with these settings
 * (`sst.aws.Function`'s `nodejs`), an ES module for Node on {@link FUNCTION_RUNTIME}. Named once
 * here for the stacks, the bundle bench (`npm run bench -- --only bundles`) and the rehearsal,
 * which runs each function from such a bundle.
 */

/** The Lambda runtime every function runs on. */
export const FUNCTION_RUNTIME = "nodejs22.x";

/**
 * sst's `nodejs` options for every function: minified ESM, no source map, no code splitting, and
 * (through `esbuild`, which sst passes to its esbuild build) class and function names kept:
 * every named error takes its class's name (`new.target.name`), which Step Functions' Retry and
 * Catch match, and minifying alone renames classes (`InvalidAudio` became a single letter).
 */
export const FUNCTION_BUNDLING = {
  format: "esm",
  minify: true,
  sourcemap: false,
  splitting: false,
  esbuild: { keepNames: true },
} as const;

const { esbuild: passedToEsbuild, ...nodejs } = FUNCTION_BUNDLING;

/**
 * The esbuild options sst builds a function with: bundled for the Node platform and the runtime's
 * Node version, with {@link FUNCTION_BUNDLING} on top.
 */
export const FUNCTION_ESBUILD_OPTIONS = {
  bundle: true,
  platform: "node",
  target: "node22",
  ...nodejs,
  ...passedToEsbuild,
} as const;

/**
 * The banner sst puts on every ESM function bundle, so that the CommonJS code bundled in it
 * (`require` of Node built-ins, `__dirname`) works in an ES module.
 */
export const FUNCTION_ESM_BANNER = [
  `import { createRequire as topLevelCreateRequire } from "module";`,
  "const require = topLevelCreateRequire(import.meta.url);",
  `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url";`,
  "const __filename = topLevelFileUrlToPath(import.meta.url);",
  `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url));`,
].join("\n");
