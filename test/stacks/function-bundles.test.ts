import { rm } from "node:fs/promises";
import { type BundledFunction, FUNCTION_ENTRIES, STAGE_PROVIDERS, stageMismatch } from "@voxtrail/workflow";
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

describe("Lambda function bundles (esbuild as sst builds them, stacks/bundling.ts)", () => {
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
