import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { Evaluation } from "../../../../stacks/mocks/evaluation";

const root = resolve(import.meta.dirname, "../../../..");
const platform = join(root, ".sst/platform");

/** What esbuild's build API needs here (sst installs esbuild into its platform; untyped here). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ errors: unknown[] }>;
}

/**
 * Evaluates the stacks for `stage` under Pulumi mocks, in a child node process, with `environment`
 * as the deploying shell's provider settings, and returns what they registered.
 *
 * Bundles sst.config.ts close to how sst 4's CLI does before `pulumi up` (pkg/project/stack.go:
 * same banner, externals and node paths, `shim/run.js` injected, output in `.sst/platform/` so
 * `@pulumi/*` resolve from sst's install), with stacks/mocks/program.ts before sst's runner.
 * Three differences, all in how globals get there: `$app`, `$cli` and `$dev` are set by the
 * banner instead of esbuild `define`s (program.ts sets `$app` from the config's `app()`); `aws`
 * and `sst` are put on globalThis by a module imported first, where the CLI injects them (with
 * esbuild's API here, injecting them into every file makes sst's modules initialise in a cycle,
 * because sst.config.ts loads the stacks with `import()`); and esbuild is sst's own 0.21 rather
 * than the CLI's embedded one. Needs `.sst/platform` (scripts/setup.sh installs it).
 */
export async function evaluateStacks(
  stage: string,
  environment: Record<string, string> = {},
): Promise<Evaluation> {
  if (!existsSync(join(platform, "src/auto/run.ts"))) {
    throw new Error(".sst/platform is missing: run `bash scripts/setup.sh` (it runs `sst install`) first");
  }
  const esbuild = createRequire(join(platform, "package.json"))("esbuild") as Esbuild;
  const work = mkdtempSync(join(tmpdir(), "voxtrail-stacks-"));
  const outfile = join(platform, `sst.config.mocks-${process.pid}-${Date.now()}.mjs`);
  try {
    const result = await esbuild.build({
      banner: {
        js: [
          "import { createRequire as topLevelCreateRequire } from 'module';",
          "const require = topLevelCreateRequire(import.meta.url);",
          'import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"',
          "const __filename = topLevelFileUrlToPath(import.meta.url)",
          'const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))',
          // The CLI `define`s these from its own evaluation of the config's app(); here the
          // program sets $app in full before run() (sst's modules read only its providers on load).
          "globalThis.$app = { providers: {} };",
          "globalThis.$dev = false;",
          "globalThis.$cli = JSON.parse(process.env.VOXTRAIL_MOCK_CLI);",
        ].join("\n"),
      },
      mainFields: ["module", "main"],
      format: "esm",
      platform: "node",
      stdin: {
        contents: [
          'import "sst:globals";',
          `import { run } from ${JSON.stringify(join(platform, "src/auto/run.ts"))};`,
          `import config from ${JSON.stringify(join(root, "sst.config.ts"))};`,
          `import { evaluate } from ${JSON.stringify(join(root, "stacks/mocks/program.ts"))};`,
          "await evaluate(run, config);",
        ].join("\n"),
        resolveDir: root,
        sourcefile: "eval.ts",
        loader: "ts",
      },
      nodePaths: [join(platform, "node_modules")],
      external: [
        "@pulumi/*",
        "undici",
        "@pulumiverse/*",
        "@sst-provider/*",
        "@aws-sdk/*",
        "esbuild",
        "archiver",
        "glob",
        "vite",
      ],
      inject: [join(platform, "src/shim/run.js")],
      plugins: [globalsPlugin()],
      outfile,
      write: true,
      bundle: true,
      logLevel: "silent",
    });
    if (result.errors.length > 0)
      throw new Error(`bundling sst.config.ts failed: ${JSON.stringify(result.errors)}`);
    const out = join(work, "evaluation.json");
    await promisify(execFile)(process.execPath, [outfile], {
      cwd: root,
      env: {
        // The deploying shell's provider choices reach the stacks: only the ones given here do.
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !/^(VOXTRAIL_|CARTESIA_|SST_SECRET_)/.test(name)),
        ),
        ...environment,
        VOXTRAIL_MOCK_STAGE: stage,
        VOXTRAIL_MOCK_OUT: out,
        VOXTRAIL_MOCK_CLI: JSON.stringify({
          command: "deploy",
          dev: false,
          paths: { home: work, root, work, platform },
          state: { version: {} },
        }),
        PULUMI_SKIP_UPDATE_CHECK: "true",
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(readFileSync(out, "utf8")) as Evaluation;
  } finally {
    rmSync(outfile, { force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

/** The globals sst's CLI provides: the providers of .sst/provider-lock.json (aws) and sst's components. */
function globalsPlugin() {
  return {
    name: "inject-globals",
    setup(build: {
      onResolve(o: { filter: RegExp }, f: () => { path: string; namespace: string }): void;
      onLoad(
        o: { filter: RegExp; namespace: string },
        f: () => { contents: string; resolveDir: string },
      ): void;
    }) {
      build.onResolve({ filter: /^sst:globals$/ }, () => ({ path: "sst:globals", namespace: "sst-globals" }));
      build.onLoad({ filter: /.*/, namespace: "sst-globals" }, () => ({
        contents: [
          'import * as aws from "@pulumi/aws";',
          `import * as sst from ${JSON.stringify(join(platform, "src/components"))};`,
          "Object.assign(globalThis, { aws, sst });",
        ].join("\n"),
        resolveDir: root,
      }));
    },
  };
}
