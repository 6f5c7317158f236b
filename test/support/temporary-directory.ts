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
