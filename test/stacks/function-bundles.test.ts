import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type BundledFunction,
  FUNCTION_ENTRIES,
  FUNCTION_ESBUILD_OPTIONS,
  FUNCTION_ESM_BANNER,
  STAGE_PROVIDERS,
  stageMismatch,
} from "@voxtrail/workflow";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bundle, buildFunctionBundles, bundleDir, packageLabel } from "../../bench/bundle-sizes";

let dir: string;
let bundles: Map<BundledFunction, Bundle>;

beforeAll(async () => {
  dir = await bundleDir();
  bundles = new Map((await buildFunctionBundles(dir)).map((bundle) => [bundle.fn, bundle]));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("Lambda function bundles (esbuild as sst builds them, packages/workflow/src/function-bundling.ts)", () => {
  const cases = FUNCTION_ENTRIES.map(({ fn }): [BundledFunction, string] => [
    fn,
    STAGE_PROVIDERS[fn].map(packageLabel).join(" + "),
  ]);
  it.each(cases)("%s holds the provider clients of its stage and no other: %s", (fn) => {
    const bundle = bundles.get(fn)!;
    expect(stageMismatch(fn, bundle.packages), `${fn} bundles ${bundle.packages.join(", ")}`).toEqual({
      unexpected: [],
      missing: [],
    });
  });
});

/**
 * Each function's bundle size ceiling, KB: its size after issue 42's work (schemas on `zod/mini`,
 * the linked secret read through `sst/resource`: 732 to 977 KB) plus about 20 KB. Classic zod's
 * chained API, which does not tree-shake, put some 430 KB back into every bundle, and with it
 * ~60 ms of each cold import; `sst`'s index, some 11 KB (its vector and realtime clients).
 */
const CEILING_KB: Record<BundledFunction, number> = {
  ingest: 850,
  transcribe: 1000,
  reason: 930,
  synthesize: 900,
  finalize: 840,
  recordFailure: 840,
  preparePrompts: 850,
  synthesizePrompt: 900,
  recordPromptFailure: 760,
  writePromptsReport: 770,
  openBatch: 750,
  lineageSigner: 820,
  lineageIndexCompactor: 870,
};

describe("Lambda function bundle sizes (issue 42: a cold start imports the whole bundle)", () => {
  it.each(FUNCTION_ENTRIES.map(({ fn }): [BundledFunction, number] => [fn, CEILING_KB[fn]]))(
    "%s stays within %i KB",
    (fn, ceiling) => {
      const { bytes } = bundles.get(fn)!;
      expect(Math.round(bytes / 1024), `${fn} is ${Math.round(bytes / 1024)} KB`).toBeLessThanOrEqual(
        ceiling,
      );
    },
  );
});

describe("Lambda function bundles are ASCII (issue 42: a cold start decodes and scans the whole source)", () => {
  // One character past ASCII (esbuild escapes those in strings, not in regular expression
  // literals) makes Node decode the whole bundle as UTF-8 and V8 hold and scan it as two-byte
  // text: about 5 ms more of transcribe's cold import (docs/benchmarks.md, function bundles).
  it.each(FUNCTION_ENTRIES.map(({ fn }) => fn))("%s", async (fn) => {
    const text = await readFile(bundles.get(fn)!.file, "latin1");
    const outside = [...text.matchAll(/[\u0080-\u00ff]+/g)].map((match) =>
      text.slice(Math.max(0, match.index - 40), match.index + 10),
    );
    expect(outside, "escape it in the source (\\uXXXX)").toEqual([]);
  });
});

describe("named errors in a function bundle", () => {
  it("keep their class names, which Step Functions' Retry and Catch match, though the bundle is minified", async () => {
    const outfile = join(dir, "named-errors.mjs");
    await build({
      ...FUNCTION_ESBUILD_OPTIONS,
      banner: { js: FUNCTION_ESM_BANNER },
      absWorkingDir: fileURLToPath(new URL("../../", import.meta.url)),
      stdin: {
        contents: `import * as core from "@voxtrail/core";
export const named = Object.entries(core)
  .filter(([, value]) => typeof value === "function" && value.prototype instanceof core.VoxtrailError)
  .map(([exported, ErrorClass]) => [exported, Reflect.construct(ErrorClass, ["message"]).name]);`,
        resolveDir: fileURLToPath(new URL("../../", import.meta.url)),
        loader: "ts",
      },
      outfile,
      logLevel: "silent",
    });
    const { named } = (await import(pathToFileURL(outfile).href)) as { named: Array<[string, string]> };
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter(([exported, name]) => exported !== name)).toEqual([]);
  });
});
