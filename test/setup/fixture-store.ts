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

let root: string | undefined;

/** Makes the directory the tier's suites share one fixture store in, built only if one asks for it. */
export async function setup(project: TestProject): Promise<void> {
  root = await mkdtemp(join(tmpdir(), "voxtrail-fixture-store-"));
  project.provide("fixtureStoreRoot", root);
}

/** Removes it, with the store if one was built. */
export async function teardown(): Promise<void> {
  if (root) await rm(root, { recursive: true, force: true });
}
