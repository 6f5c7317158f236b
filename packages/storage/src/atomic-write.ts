import { randomUUID } from "node:crypto";
import { renameSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";

/** Names of in-progress temporary files start with this; listings skip them. */
export const TEMP_FILE_PREFIX = ".voxtrail-tmp-";

/**
 * Makes `target` appear whole or not at all: `write` fills a temporary file in the same
 * directory, which is then renamed over `target`. If `write` or the rename fails, the temporary
 * file is removed, `target` keeps its previous content and the error is rethrown. The rename is
 * synchronous, as the store's other metadata changes (see `IN_THREAD_BYTES`).
 *
 * @example
 * await writeAtomically("/data/report.json", (temp) => writeFile(temp, json, { flush: true }));
 */
export async function writeAtomically(
  target: string,
  write: (tempPath: string) => Promise<void>,
): Promise<void> {
  const temp = path.join(path.dirname(target), `${TEMP_FILE_PREFIX}${randomUUID()}`);
  try {
    await write(temp);
    renameSync(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
