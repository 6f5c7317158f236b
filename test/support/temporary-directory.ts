import { mkdtempSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

/**
 * A directory under the system's temp directory for the calling test file: made before its tests
 * run, removed with everything in it after. Call it at the top of the file; the returned function
 * gives the directory's path once it exists.
 *
 * @example
 * const workDir = temporaryDirectory("voxtrail-prompts-");
 * it("...", async () => writeFile(join(workDir(), "menu.csv"), "id,text\n"));
 */
export function temporaryDirectory(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error("the temporary directory exists only while the file's tests run");
    return dir;
  };
}

/** The directories {@link scratchDirectory} made for the test file that imports this module. */
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

/**
 * A fresh directory under the system's temp directory, made now and removed with everything in it
 * once the calling test file's tests have run: for helpers that make one per call.
 *
 * @example
 * const store = new DirectoryStore({ root: scratchDirectory("voxtrail-claim-") });
 */
export function scratchDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}
