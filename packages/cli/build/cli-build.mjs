/**
 * The `voxtrail` command's JavaScript build: esbuild bundles `src/main.ts` and the workspace
 * packages it imports into `packages/cli/dist/`, split so that each command's `import()` loads
 * only its own code. Packages from node_modules stay external and load as Node loads them (the
 * native `@duckdb/node-api` among them). `build.json` in the folder names the entry file, when the
 * build started and the files it was built from, so a start of the bin can tell a stale build.
 *
 * Plain JavaScript on purpose: the bin runs it without a TypeScript loader.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PACKAGE_DIR = resolve(import.meta.dirname, "..");
const ROOT = resolve(PACKAGE_DIR, "../..");

/** Where the build goes (gitignored). */
export const DIST_DIR = join(PACKAGE_DIR, "dist");

const MANIFEST = join(DIST_DIR, "build.json");

/** Files outside the bundle's inputs that change what a build gives. */
const BUILD_CONFIG = [
  fileURLToPath(import.meta.url),
  join(ROOT, "tsconfig.json"),
  join(ROOT, "package-lock.json"),
];

/**
 * The entry file of the current build, or `undefined` when there is none or it is stale: a file it
 * was built from (a source, a package.json, this script) changed or went away since it started.
 *
 * @example
 * const entry = currentBuild() ?? (await buildCli());
 */
export function currentBuild() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
  } catch {
    return undefined;
  }
  for (const file of manifest.inputs) {
    const modified = statSync(join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs;
    if (modified === undefined || modified >= manifest.startedAt) return undefined;
  }
  return join(DIST_DIR, manifest.entry);
}

/**
 * Builds the CLI into {@link DIST_DIR} and resolves to the path of its entry file. Output file
 * names carry their content's hash and are written whole (a temporary file, then a rename), and the
 * manifest last: a process that starts meanwhile, or builds at the same time, reads either the old
 * build or the new one, never half of one. `clean` empties the folder first (a full build; not while
 * a command may be running from it).
 *
 * @example
 * await buildCli({ clean: true }); // npm run build
 */
export async function buildCli({ clean = false } = {}) {
  const startedAt = Date.now();
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: { main: join(PACKAGE_DIR, "src/main.ts") },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: DIST_DIR,
    entryNames: "[name]-[hash]",
    chunkNames: "chunks/[name]-[hash]",
    keepNames: true,
    sourcemap: "linked",
    metafile: true,
    write: false,
    logLevel: "warning",
    define: SOURCE_LOCATION,
    plugins: [externalNodeModules, sourceLocations],
  });
  if (clean) await rm(DIST_DIR, { recursive: true, force: true });
  await Promise.all(result.outputFiles.map((file) => writeWhole(file.path, file.contents)));
  const entry = Object.keys(result.metafile.outputs).find(
    (output) => result.metafile.outputs[output].entryPoint !== undefined,
  );
  const inputs = [...Object.keys(result.metafile.inputs).map((input) => resolve(ROOT, input)), ...BUILD_CONFIG];
  const manifest = {
    entry: relative(DIST_DIR, resolve(ROOT, entry)),
    startedAt,
    inputs: [...new Set([...inputs, ...(await packageManifests(inputs))])].map((file) => relative(ROOT, file)),
  };
  await writeWhole(MANIFEST, JSON.stringify(manifest, null, 2));
  return join(DIST_DIR, manifest.entry);
}

/** The package.json of each workspace package an input belongs to: its exports shape resolution. */
async function packageManifests(inputs) {
  const packages = new Set(
    inputs
      .map((file) => relative(join(ROOT, "packages"), file).split("/")[0])
      .filter((name) => name && !name.startsWith("..")),
  );
  return [...packages].map((name) => join(ROOT, "packages", name, "package.json"));
}

/** Writes `contents` to `path` through a temporary file and a rename, so a reader never sees part of it. */
async function writeWhole(path, contents) {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

/**
 * Keeps packages from node_modules out of the bundle, the workspace's own `@voxtrail/*` in: Node
 * loads them from node_modules as it would for the sources, native modules and their files included.
 */
const externalNodeModules = {
  name: "external-node-modules",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith("@voxtrail/") ? undefined : { path: args.path, external: true },
    );
  },
};

const LOADERS = { ".ts": "ts", ".mts": "ts", ".js": "js", ".mjs": "js" };

/** What `import.meta.url`, `.dirname` and `.filename` stand for in the bundle: see {@link sourceLocations}. */
const SOURCE_LOCATION = {
  "import.meta.url": "__voxtrailSourceUrl",
  "import.meta.dirname": "__voxtrailSourceDir",
  "import.meta.filename": "__voxtrailSourceFile",
};

/**
 * Gives each workspace source its own location as `import.meta.url` (and `.dirname`, `.filename`):
 * what a source finds next to itself (flite's child and wasm, the recogniser's models, the bundled
 * fixtures, worker scripts) it still finds from the bundle. The build's `define` turns each into a
 * name, declared here at the start of the source's first line (its other lines keep their numbers).
 */
const sourceLocations = {
  name: "source-locations",
  setup(build) {
    build.onLoad({ filter: /\/packages\/[^/]+\/src\/.*\.(ts|mts|js|mjs)$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta")) return undefined;
      const location = {
        __voxtrailSourceUrl: pathToFileURL(args.path).href,
        __voxtrailSourceDir: dirname(args.path),
        __voxtrailSourceFile: args.path,
      };
      const declarations = Object.entries(location).map(([name, value]) => `${name} = ${JSON.stringify(value)}`);
      return { contents: `const ${declarations.join(", ")}; ${source}`, loader: LOADERS[extname(args.path)] };
    });
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = await buildCli({ clean: true });
  process.stdout.write(`built ${relative(process.cwd(), entry)}\n`);
}
