import { copyFile, mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { BUNDLED_VOICEMAILS_DIR, collectInputFiles, type InputFile } from "@voxtrail/local";

/**
 * `count` voicemails: the bundled ones, then copies of them under `dir` named `<nn>-<name>` so that
 * each is a job of its own (the job id follows the key).
 *
 * @example
 * const files = await voicemailCopies(20, join(scratch, "voicemails"));
 */
export async function voicemailCopies(count: number, dir: string): Promise<InputFile[]> {
  const bundled = await collectInputFiles([BUNDLED_VOICEMAILS_DIR]);
  if (count <= bundled.length) return bundled.slice(0, count);
  await mkdir(dir, { recursive: true });
  const files: InputFile[] = [];
  for (let index = 0; index < count; index++) {
    const source = bundled[index % bundled.length] as InputFile;
    const name = `${String(index + 1).padStart(2, "0")}-${basename(source.path)}`;
    await copyFile(source.path, join(dir, name));
    files.push({ path: join(dir, name), name });
  }
  return files;
}
