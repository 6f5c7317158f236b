import { randomUUID } from "node:crypto";
import { renameSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { TEMP_FILE_PREFIX } from "./atomic-write";
import { hasErrorCode } from "./errno";

/** A file written (and flushed) under a temporary name beside its target, not yet in place. */
export interface StagedFile {
  /** Renames it over its target (synchronously, as `writeAtomically` does); removes it if that fails. */
  commit(): Promise<void>;
  /** Removes it, leaving the target as it was. */
  discard(): Promise<void>;
}

/**
 * The first half of an atomic write: `content` goes to a temporary file beside `target` (its
 * directory made if missing), flushed to disk when `flush`, and {@link StagedFile.commit} renames
 * it into place. Several files can so be written at once and still take their names in the order
 * their readers need.
 *
 * @example
 * const staged = await stageFile("/data/.meta/report.json", sidecarJson, true);
 * await staged.commit();
 */
export async function stageFile(
  target: string,
  content: Uint8Array | string,
  flush: boolean,
): Promise<StagedFile> {
  const temp = path.join(path.dirname(target), `${TEMP_FILE_PREFIX}${randomUUID()}`);
  const write = () => writeFile(temp, content, { flush });
  const discard = async () => {
    await rm(temp, { force: true });
  };
  try {
    await write().catch(async (error: unknown) => {
      if (!hasErrorCode(error, "ENOENT")) throw error;
      await mkdir(path.dirname(target), { recursive: true });
      await write();
    });
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    commit: async () => {
      try {
        renameSync(temp, target);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    discard,
  };
}
