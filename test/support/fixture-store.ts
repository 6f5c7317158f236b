import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BUNDLED_VOICEMAILS_DIR, collectInputFiles, type JobResult, LocalRuntime } from "@voxtrail/local";
import { inject } from "vitest";
import { SIMULATED_TRANSCRIBER } from "./simulated-transcriber";

/** A run of every bundled voicemail: its store's directory and each job's result. */
export interface FixtureStore {
  dir: string;
  results: JobResult[];
}

/**
 * The store of one local run of every bundled voicemail (simulated transcriber, the embedded
 * reasoner and synthesizer), built once per test run by whichever suite asks first while the
 * others wait for it. Read it only: a suite that writes takes {@link copyOfFixtureStore}.
 *
 * @example
 * const { dir, results } = await sharedFixtureStore();
 */
export async function sharedFixtureStore(): Promise<FixtureStore> {
  const root = inject("fixtureStoreRoot");
  const dir = join(root, "store");
  const done = join(root, "results.json");
  const failed = join(root, "failed.txt");
  try {
    await mkdir(join(root, "building"));
  } catch {
    return { dir, results: await waitFor(done, failed) };
  }
  try {
    const runtime = await LocalRuntime.start({ storeDir: dir, providers: SIMULATED_TRANSCRIBER });
    let results: JobResult[];
    try {
      results = await runtime.run(await collectInputFiles([BUNDLED_VOICEMAILS_DIR]), { concurrency: 2 });
    } finally {
      await runtime.close();
    }
    // Whole or not at all: the waiters read it as soon as it exists.
    await writeFile(`${done}.partial`, JSON.stringify(results));
    await rename(`${done}.partial`, done);
    return { dir, results };
  } catch (error) {
    await writeFile(failed, (error as Error).message);
    throw error;
  }
}

/**
 * A copy of the shared fixture store in `into` (which must not exist yet), for a suite that writes.
 *
 * @example
 * const { dir, results } = await copyOfFixtureStore(join(workDir, "store"));
 */
export async function copyOfFixtureStore(into: string): Promise<FixtureStore> {
  const { dir, results } = await sharedFixtureStore();
  await rm(into, { recursive: true, force: true });
  await cp(dir, into, { recursive: true });
  return { dir: into, results };
}

async function waitFor(done: string, failed: string): Promise<JobResult[]> {
  for (;;) {
    const results = await readFile(done, "utf8").catch(() => undefined);
    if (results !== undefined) return JSON.parse(results) as JobResult[];
    const error = await readFile(failed, "utf8").catch(() => undefined);
    if (error !== undefined) throw new Error(`the shared fixture store failed to build: ${error}`);
    await sleep(250);
  }
}
