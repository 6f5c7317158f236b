/**
 * How every Lambda function of the stage is bundled: sst's esbuild build with these settings
 * (`sst.aws.Function`'s `nodejs`), an ES module for Node on `FUNCTION_RUNTIME`. Named once here so
 * that the bundle bench (`npm run bench -- --only bundles`) measures exactly what deploys.
 */
export const FUNCTION_RUNTIME = "nodejs22.x";

/** sst's `nodejs` options for every function: minified ESM, no source map, no code splitting. */
export const FUNCTION_BUNDLING = {
  format: "esm",
  minify: true,
  sourcemap: false,
  splitting: false,
} as const;

/**
 * The esbuild options sst builds a function with, for the bench: sst bundles for the Node
 * platform and the runtime's Node version, with `FUNCTION_BUNDLING` on top.
 */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: "node",
  target: "node22",
  ...FUNCTION_BUNDLING,
} as const;
