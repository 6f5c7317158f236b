import { randomUUID } from "node:crypto";
import { renameSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { TEMP_FILE_PREFIX } from "./atomic-write";
import { hasErrorCode } from "./errno";
import { linkMakingDirectory, writeNewFile } from "./new-file";

/** A file written (and flushed) under a temporary name beside its target, not yet in place. */
export interface StagedFile {
  /** Renames it over its target (synchronously, as `writeAtomically` does); removes it if that fails. */
  commit(): Promise<void>;
  /** Removes it, leaving the target as it was. */
  discard(): Promise<void>;
}

/**
 * The first half of an atomic write of two files of the same bytes: `content` goes to a temporary
 * file beside `target` (its directory made if missing), flushed to disk when `flush`, and a second
 * name for it (a hard link) beside `alias`: one write and one flush for both. Committing renames
 * `target`'s into place first, then `alias`'s, so `alias` never names what `target` does not yet;
 * discarding removes both temporary names. Several writes can so be made at once and their files
 * still take their names in the order readers need.
 *
 * @example
 * const staged = await stageLinkedFiles("/data/.versions/ab12/v1.json", "/data/.meta/report.json", json, true);
 * await staged.commit();
 */
export async function stageLinkedFiles(
  target: string,
  alias: string,
  content: Uint8Array | string,
  flush: boolean,
): Promise<StagedFile> {
  const written = await writeTemp(target, content, flush);
  const first = stagedAt(written, target);
  const temp = tempBeside(alias);
  try {
    linkMakingDirectory(written, temp);
  } catch (error) {
    await first.discard();
    throw error;
  }
  const second = stagedAt(temp, alias);
  const discard = async () => {
    await Promise.all([first.discard(), second.discard()]);
  };
  return {
    commit: async () => {
      try {
        await first.commit();
        await second.commit();
      } catch (error) {
        await discard(); // A committed one has no temporary name left.
        throw error;
      }
    },
    discard,
  };
}

/** A new temporary name in `target`'s directory. */
function tempBeside(target: string): string {
  return path.join(path.dirname(target), `${TEMP_FILE_PREFIX}${randomUUID()}`);
}

/**
 * Writes `content` (flushed when `flush`) to a new temporary file beside `target`, making the
 * directory if missing, and returns its path; a failed write leaves no temporary file.
 */
async function writeTemp(target: string, content: Uint8Array | string, flush: boolean): Promise<string> {
  const temp = tempBeside(target);
  const write = () => writeNewFile(temp, content, flush);
  try {
    await write().catch(async (error: unknown) => {
      if (!hasErrorCode(error, "ENOENT")) throw error;
      await mkdir(path.dirname(target), { recursive: true });
      await write();
    });
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return temp;
}

/** The file written at `temp`, staged for `target`. */
function stagedAt(temp: string, target: string): StagedFile {
  const discard = async () => {
    await rm(temp, { force: true });
  };
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
