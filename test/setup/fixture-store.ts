import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where this run keeps the shared fixture store (`test/support/fixture-store.ts` builds it on first use). */
    fixtureStoreRoot: string;
  }
}

/**
 * Makes the directory the tier's suites share one fixture store in, built only if one asks for it;
 * the returned teardown removes it, with the store if one was built.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), "voxtrail-fixture-store-"));
  project.provide("fixtureStoreRoot", root);
  return () => rm(root, { recursive: true, force: true });
}
