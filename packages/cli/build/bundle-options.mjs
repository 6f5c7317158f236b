/**
 * The esbuild settings the `voxtrail` command is bundled with, shared by the repository's build
 * (`cli-build.mjs`: `packages/cli/dist`, run in place) and the packed one (`pack-cli.mjs`: the
 * `voxtrail` npm tarball). They differ only in where the output goes, how its files are named and
 * what a bundled source's own location (`import.meta.url`) is: its path in this checkout, or its
 * path inside the installed package, found from the output file at run time.
 *
 * Plain JavaScript on purpose: the bin runs it without a TypeScript loader.
 */

import { readFile } from "node:fs/promises";
import { dirname, extname, relative } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Packages loaded from node_modules at run time rather than bundled: DuckDB's native binding, and
 * sst, which only a deployed function's linked secrets load.
 */
export const EXTERNAL = ["@duckdb/node-api", "sst"];

/** The entry point, as the build's metafile names it (relative to the repository). */
export const ENTRY_POINT = "packages/cli/src/main.ts";

/** Gives bundled CommonJS packages the `require` an ES module lacks (Node's built-ins, mostly). */
const REQUIRE_BANNER =
  'import { createRequire as voxtrailCreateRequire } from "node:module"; const require = voxtrailCreateRequire(import.meta.url);';

/**
 * What a packed output file adds: the installed package's root, one folder up from the file (the
 * packed build keeps every file in `dist/`), and what turns a path inside it into a location.
 */
const PACKAGE_ROOT_BANNER =
  'import { fileURLToPath as voxtrailFileUrlToPath } from "node:url"; import { dirname as voxtrailDirname } from "node:path"; const voxtrailPackageUrl = new URL("../", import.meta.url);';

const LOADERS = { ".ts": "ts", ".mts": "ts", ".cts": "ts", ".js": "js", ".mjs": "js", ".cjs": "js" };

/** What `import.meta.url`, `.dirname` and `.filename` stand for in the bundle: see {@link sourceLocations}. */
const SOURCE_LOCATION = {
  "import.meta.url": "__voxtrailSourceUrl",
  "import.meta.dirname": "__voxtrailSourceDir",
  "import.meta.filename": "__voxtrailSourceFile",
};

/**
 * Gives each bundled module its own location as `import.meta.url` (and `.dirname`, `.filename`):
 * what a source finds next to itself (flite's child, the recogniser's models, the bundled
 * fixtures, worker scripts) it still finds from the bundle. The build's `define` turns each into a
 * name, declared here at the start of the source's first line (its other lines keep their numbers):
 * `checkout`, the source's absolute path; `package`, its path relative to `root`, resolved at run
 * time against the installed package's root (which holds those files at the same relative paths).
 */
function sourceLocations(mode, root) {
  return {
    name: "source-locations",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes("import.meta")) return undefined;
        const declarations =
          mode === "checkout"
            ? [
                `__voxtrailSourceUrl = ${JSON.stringify(pathToFileURL(args.path).href)}`,
                `__voxtrailSourceDir = ${JSON.stringify(dirname(args.path))}`,
                `__voxtrailSourceFile = ${JSON.stringify(args.path)}`,
              ]
            : [
                `__voxtrailSourceUrl = new URL(${JSON.stringify(relative(root, args.path))}, voxtrailPackageUrl).href`,
                "__voxtrailSourceFile = voxtrailFileUrlToPath(__voxtrailSourceUrl)",
                "__voxtrailSourceDir = voxtrailDirname(__voxtrailSourceFile)",
              ];
        return {
          contents: `const ${declarations.join(", ")}; ${source}`,
          loader: LOADERS[extname(args.path)],
        };
      });
    },
  };
}

/**
 * The esbuild options of a build of the CLI from the checkout at `root` into `outdir`:
 * `checkout` for the repository's own build (entry and chunks named by their hash, chunks in
 * `chunks/`), `package` for the packed one (`main.js` and its chunks side by side, locations
 * relative to the package).
 *
 * @example
 * const { outputFiles } = await build(bundleOptions({ root, outdir: DIST_DIR, mode: "checkout" }));
 */
export function bundleOptions({ root, outdir, mode }) {
  return {
    absWorkingDir: root,
    entryPoints: { main: ENTRY_POINT },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    // ES module builds first (the AWS SDK's dist-es): a command's `await import()` of a package is
    // split into its own chunk, and a CommonJS one there exports only `default`, so `{ SSMClient }`
    // of it would be undefined.
    mainFields: ["module", "main"],
    target: "node20",
    outdir,
    entryNames: mode === "checkout" ? "[name]-[hash]" : "[name]",
    chunkNames: mode === "checkout" ? "chunks/[name]-[hash]" : "[name]-[hash]",
    keepNames: true,
    external: EXTERNAL,
    banner: { js: mode === "checkout" ? REQUIRE_BANNER : `${REQUIRE_BANNER} ${PACKAGE_ROOT_BANNER}` },
    define: SOURCE_LOCATION,
    plugins: [sourceLocations(mode, root)],
    metafile: true,
    logLevel: "warning",
  };
}
