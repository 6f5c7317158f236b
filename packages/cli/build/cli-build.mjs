/**
 * The `voxtrail` command's JavaScript build: esbuild bundles `src/main.ts` and the workspace
 * packages it imports into `packages/cli/dist/`, split so that each command's `import()` loads
 * only its own code. Packages from node_modules are bundled too (Node's loader then reads one file
 * where it resolved hundreds, the AWS SDK's alone), but for the externals of `bundle-options.mjs`. `build.json` in the
 * folder names the entry file, when the build started and the files it was built from, so a start
 * of the bin can tell a stale build.
 *
 * Plain JavaScript on purpose: the bin runs it without a TypeScript loader.
 */

import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleOptions, ENTRY_POINT } from "./bundle-options.mjs";

const PACKAGE_DIR = resolve(import.meta.dirname, "..");
const ROOT = resolve(PACKAGE_DIR, "../..");

/** Where the build goes (gitignored). */
export const DIST_DIR = join(PACKAGE_DIR, "dist");

const MANIFEST = join(DIST_DIR, "build.json");

/**
 * Files outside the workspace sources that change what a build gives: this script, its esbuild
 * settings, the TypeScript settings, and what npm installed (node_modules' own record of it, rewritten by every install).
 */
const BUILD_CONFIG = [
  fileURLToPath(import.meta.url),
  fileURLToPath(new URL("./bundle-options.mjs", import.meta.url)),
  join(ROOT, "tsconfig.json"),
  join(ROOT, "node_modules/.package-lock.json"),
];

/**
 * The entry file of the current build, or `undefined` when there is none or it is stale: a file it
 * was built from (a source, a package.json, this script) changed or went away since it started.
 *
 * @example
 * const entry = currentBuild() ?? (await buildCli());
 */
export function currentBuild() {
  const manifest = readManifest();
  if (manifest === undefined) return undefined;
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
 * build or the new one, never half of one. The files of a build replaced over an hour ago go.
 *
 * @example
 * const entry = await buildCli(); // npm run build
 */
export async function buildCli() {
  const startedAt = Date.now();
  const { build } = await import("esbuild");
  const { outputFiles, metafile } = await build({
    ...bundleOptions({ root: ROOT, outdir: DIST_DIR, mode: "checkout" }),
    write: false,
  });
  const previous = readManifest();
  await Promise.all(outputFiles.map((file) => writeWhole(file.path, file.contents)));
  const entry = Object.keys(metafile.outputs).find(
    (output) => metafile.outputs[output].entryPoint === ENTRY_POINT,
  );
  const sources = Object.keys(metafile.inputs).filter((input) => !input.includes("node_modules/"));
  const manifest = {
    entry: relative(DIST_DIR, join(ROOT, entry)),
    startedAt,
    inputs: [...sources, ...packageManifests(sources), ...BUILD_CONFIG].map((file) =>
      relative(ROOT, resolve(ROOT, file)),
    ),
    outputs: outputFiles.map((file) => relative(DIST_DIR, file.path)),
    earlier: earlierBuilds(previous),
  };
  await writeWhole(MANIFEST, JSON.stringify(manifest, null, 2));
  await removeEarlierBuilds([manifest, ...manifest.earlier].flatMap((kept) => kept.outputs));
  return join(DIST_DIR, manifest.entry);
}

/**
 * How long the files of a build stay once a newer one replaced it: a command started from it loads
 * some of them only when first needed (the AWS SDK's, as it first signs a request), and a run can
 * take long.
 */
const REPLACED_BUILD_KEPT_MS = 60 * 60_000;

/** The builds whose files stay once `previous` is replaced: it and those replaced within the hour. */
function earlierBuilds(previous) {
  if (previous === undefined) return [];
  const now = Date.now();
  return [{ replacedAt: now, outputs: previous.outputs ?? [] }, ...(previous.earlier ?? [])].filter(
    (build) => now - build.replacedAt < REPLACED_BUILD_KEPT_MS,
  );
}

/** The current build's manifest (see the module's comment), or `undefined` when there is none. */
function readManifest() {
  try {
    return JSON.parse(readFileSync(MANIFEST, "utf8"));
  } catch {
    return undefined;
  }
}

/** Removes the files in {@link DIST_DIR} that are neither `kept` nor a build's file being written. */
async function removeEarlierBuilds(kept) {
  const keep = new Set([MANIFEST, ...kept.map((file) => join(DIST_DIR, file))]);
  const entries = await readdir(DIST_DIR, { recursive: true, withFileTypes: true });
  await Promise.all(
    entries
      .filter((entry) => entry.isFile() && !entry.name.endsWith(".tmp"))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => !keep.has(file))
      .map((file) => rm(file, { force: true })),
  );
}

/**
 * The package.json of each workspace package a source belongs to: its exports shape resolution. A
 * source outside `packages/` (`stacks/stage-config.ts`) belongs to none: naming a manifest for it
 * would name a file that does not exist, and every build would look stale, so each command rebuilt.
 */
function packageManifests(sources) {
  const inPackages = sources.filter((source) => source.startsWith("packages/"));
  const packages = new Set(inPackages.map((source) => source.split("/")[1]));
  return [...packages].map((name) => `packages/${name}/package.json`);
}

/**
 * Writes `contents` to `path` through a temporary file and a rename, so a reader never sees part of
 * it; a content-named file already there is left as it is.
 */
async function writeWhole(path, contents) {
  if (path !== MANIFEST && existsSync(path)) return;
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = await buildCli();
  process.stdout.write(`built ${relative(process.cwd(), entry)}\n`);
}
